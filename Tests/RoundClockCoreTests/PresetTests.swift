import Testing
@testable import RoundClockCore

@Suite struct PresetTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var spec: String
        var prep: Int?
        var rounds: Int
        var work: Int
        var rest: Int?
        var warning: Int?
        var counting: Counting = .down
        var total: Int
        var testDescription: String { spec }
    }

    static let table: [Expected] = [
        .init(spec: "boxing", prep: 10, rounds: 12, work: 180, rest: 60, warning: 10, total: 2830),
        .init(spec: "mma", prep: 10, rounds: 5, work: 300, rest: 60, warning: 10, total: 1750),
        .init(spec: "muaythai", prep: 10, rounds: 5, work: 180, rest: 120, warning: 10, total: 1390),
        .init(spec: "tabata", prep: 10, rounds: 8, work: 20, rest: 10, total: 240),
        .init(spec: "emom", prep: 10, rounds: 10, work: 60, total: 610),
        .init(spec: "emom:12", prep: 10, rounds: 12, work: 60, total: 730),
        .init(spec: "amrap", prep: 10, rounds: 1, work: 1200, total: 1210),
        .init(spec: "amrap:15", prep: 10, rounds: 1, work: 900, total: 910),
        .init(spec: "fortime", prep: 10, rounds: 1, work: 1200, counting: .up, total: 1210),
        .init(spec: "fortime:12", prep: 10, rounds: 1, work: 720, counting: .up, total: 730),
        .init(spec: "countdown:5:00", rounds: 1, work: 300, total: 300),
        .init(spec: "countdown:0:45", rounds: 1, work: 45, total: 45),
        .init(spec: "10 x 0:45/0:15, prep 0:10, warn 0:05", prep: 10, rounds: 10, work: 45, rest: 15, warning: 5, total: 595),
        .init(spec: "3 x 5:00", rounds: 3, work: 300, total: 900),
    ]

    @Test(arguments: table)
    func phasePlanIsExact(_ e: Expected) throws {
        let p = try ProgramSpec.parse(e.spec)
        var expected: [Phase] = []
        if let prep = e.prep { expected.append(Phase(.prep, length: .seconds(prep), round: 0)) }
        for r in 1...e.rounds {
            expected.append(Phase(.work, length: .seconds(e.work), counting: e.counting, round: r))
            if let rest = e.rest, r < e.rounds { expected.append(Phase(.rest, length: .seconds(rest), round: r)) }
        }
        #expect(p.phases == expected)
        #expect(p.phases.last?.kind == .work, "no rest after the last round")
        #expect(p.total == .seconds(e.total))
        #expect(p.warning == e.warning.map { .seconds($0) })
        #expect(p.rounds == e.rounds)
    }

    @Test func stopwatchIsOneOpenCountUp() throws {
        let p = try ProgramSpec.parse("stopwatch")
        #expect(p.phases == [Phase(.work, length: nil, counting: .up, round: 1)])
        #expect(p.total == nil)
    }

    @Test func clockIsTheWallClock() throws {
        #expect(try ProgramSpec.parse("clock").kind == .wallClock)
    }

    @Test func boxingSignals() {
        let signals = Presets.boxing.signals
        #expect(signals.prefix(5).map(\.signal) == [.prepTick, .prepTick, .prepTick, .start, .warning])
        #expect(signals.prefix(7).map(\.offset) == [7, 8, 9, 10, 180, 190, 250].map { .seconds($0) })
        #expect(signals.filter { $0.signal == .start }.count == 12)
        #expect(signals.filter { $0.signal == .warning }.count == 12)
        #expect(signals.filter { $0.signal == .end }.count == 11, "the last work end is the finish")
        #expect(signals.last == SignalPoint(offset: .seconds(2830), signal: .finish))
    }

    @Test func emomHasAStartEveryMinuteAndNoEnd() throws {
        let signals = try Presets.emom(minutes: 3).signals
        #expect(signals.map(\.signal) == [.prepTick, .prepTick, .prepTick, .start, .start, .start, .finish])
        #expect(signals.map(\.offset) == [7, 8, 9, 10, 70, 130, 190].map { .seconds($0) })
    }

    @Test func modeCycleOrder() {
        #expect(Presets.cycle.map(\.name) == ["boxing", "mma", "muaythai", "tabata", "emom:10", "amrap:20", "fortime:20", "stopwatch", "clock"])
    }

    @Test func planDescriptions() throws {
        #expect(Presets.boxing.plan == "prep 0:10, 12 × 3:00 work / 1:00 rest, warn 0:10")
        #expect(Presets.boxing.totalDescription == "47:10")
        #expect(try ProgramSpec.parse("fortime:30").plan == "prep 0:10, 1 × 30:00 count-up work")
        #expect(try ProgramSpec.parse("amrap:120").totalDescription == "2:00:10")
    }
}
