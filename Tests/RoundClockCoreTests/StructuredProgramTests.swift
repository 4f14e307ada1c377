import Testing
@testable import RoundClockCore

/// Structured programs, the new presets, halfway and countdown beeps, overtime (issue 14).
@Suite struct StructuredProgramTests {
    /// Faces and signals from the start of a running session, as `"T time|round|phase signals"`.
    func timeline(_ program: Program, until: Double) -> [String] {
        var c = Controller<T>(program: program)
        _ = c.perform(.start, at: .s(0))
        return faceChanges(&c, from: .s(0), until: .s(until)).map { t, face, signals in
            "\(t) \(face.time.text)|\(face.round.text)|\(face.phase.text)" + (signals.isEmpty ? "" : " " + signals.map(\.rawValue).joined(separator: ","))
        }
    }

    @Test func fightGoneBadShowsStationsSetsAndSetRest() throws {
        let fgb = try ProgramSpec.parse("fgb")
        #expect(fgb.total == .seconds(10 + 3 * 300 + 2 * 60))
        #expect(fgb.phases.count == 18)
        #expect(fgb.sets == 3 && fgb.rounds == 1)
        let lines = timeline(fgb, until: 1030)
        #expect(lines.contains("10.000  1:00|1-01|WALL start"))
        #expect(lines.contains("70.000  1:00|1-01|SDHP start"))
        #expect(lines.contains("250.000  1:00|1-01|ROW  start"))
        #expect(lines.contains("310.000  1:00|1-01|REST end"), "set rest after the first set")
        #expect(lines.contains("370.000  1:00|2-01|WALL start"))
        #expect(lines.contains("970.000  1:00|3-01|ROW  start"))
        #expect(lines.last == "1030.000  0:00|3-01|DONE finish")
        #expect(lines.first == "0.000  0:10|----|PREP")
    }

    @Test func roundsInSetsWithRoundRestNumberRoundsWithinTheSet() throws {
        var plan = IntervalPlan(intervals: [Interval(label: "ROW", length: .seconds(20)), Interval(label: "BIKE", length: .seconds(10), counting: .up)])
        plan.rounds = 2
        plan.roundRest = .seconds(5)
        plan.sets = 2
        plan.setRest = .seconds(30)
        let program = try plan.program(name: "p", label: "CUST")
        let lines = timeline(program, until: 200)
        #expect(lines.prefix(2) == ["0.000  0:20|1-01|ROW ", "1.000  0:19|1-01|ROW "])
        #expect(lines.contains("20.000  0:00|1-01|BIKE start"), "BIKE counts up from 0:00")
        #expect(lines.contains("30.000  0:05|1-01|REST end"), "round rest")
        #expect(lines.contains("35.000  0:20|1-02|ROW  start"))
        #expect(lines.contains("65.000  0:30|1-02|REST end"))
        #expect(lines.contains("95.000  0:20|2-01|ROW  start"))
        #expect(lines.last == "160.000  0:10|2-02|DONE finish")
    }

    @Test func badPlansAreRefusedWithTheirReason() {
        var plan = IntervalPlan(intervals: [Interval(label: "A", length: .seconds(1))])
        plan.sets = 10
        #expect(throws: ProgramError.self) { try plan.program(name: "p", label: "X") }
        plan.sets = 9
        plan.rounds = 99
        plan.intervals = Array(repeating: Interval(label: "A", length: .seconds(1)), count: 3)
        #expect(throws: ProgramError.self) { try plan.program(name: "p", label: "X") }
        plan.intervals = []
        plan.rounds = 1
        #expect(throws: ProgramError.self) { try plan.program(name: "p", label: "X") }
    }

    @Test func bjjSwitchesAtHalfTimeOfEachRoll() throws {
        let bjj = try ProgramSpec.parse("bjj")
        let signals = bjj.signals.filter { $0.signal == .switch }.map(\.offset)
        #expect(signals.count == 6)
        #expect(signals.first == .seconds(10 + 180))
        #expect(signals.last == .seconds(10 + 5 * 420 + 180))
        #expect(bjj.totalDescription == "41:10")
    }

    @Test func deathByShowsTheRepTargetOnThePhasePanel() throws {
        let lines = timeline(try ProgramSpec.parse("deathby:12"), until: 730)
        #expect(lines.contains("10.000  1:00| 1.12|   1 start"))
        #expect(lines.contains("670.000  1:00|12.12|  12 start"))
        #expect(lines.last == "730.000  0:00|12.12|DONE finish")
        #expect(throws: SpecError.self) { try ProgramSpec.parse("deathby:100") }
        #expect((try? ProgramSpec.parse("deathby"))?.rounds == 20)
    }

    @Test func countdownBeepsBeforeEveryPhaseChangeAndHalfway() throws {
        var plan = IntervalPlan(prep: .seconds(5), intervals: [Interval(label: "WORK", length: .seconds(20))])
        plan.rounds = 2
        plan.roundRest = .seconds(10)
        plan.countdownBeeps = 2
        plan.halfway = true
        let program = try plan.program(name: "p", label: "CUST")
        let points = program.signals.map { "\($0.offset.formattedSeconds(decimals: 0)) \($0.signal.rawValue)" }
        #expect(points == ["3 prep-tick", "4 prep-tick", "5 start", "15 halfway", "23 tick", "24 tick", "25 end",
                           "33 tick", "34 tick", "35 start", "45 halfway", "53 tick", "54 tick", "55 finish"])
        plan.countdownBeeps = 0
        #expect(try plan.program(name: "p", label: "CUST").signals.contains { $0.signal == .prepTick } == false, "0 silences prep too")
        #expect(throws: ProgramError.self) {
            try Program(name: "p", label: "X", phases: [Phase(.work, length: .seconds(5), round: 1)], countdownBeeps: 11)
        }
    }

    @Test func overtimeCountsUpPastTheCapWithAPlusSign() throws {
        var plan = IntervalPlan(intervals: [Interval(label: "FT", length: .seconds(90), counting: .up)])
        plan.overtime = true
        let program = try plan.program(name: "ft", label: "FT")
        #expect(program.total == nil && program.hasOvertime)
        #expect(program.totalDescription == "1:30+")
        let lines = timeline(program, until: 700)
        #expect(lines.contains("89.000  1:29|    |FT  "))
        #expect(lines.contains("90.000 +0:00|    |OVER finish"))
        #expect(lines.contains("91.000 +0:01|    |OVER"))
        #expect(lines.contains("599.000 +8:29|    |OVER"))
        #expect(lines.contains("689.000 +9:59|    |OVER"))
        #expect(lines.contains("690.000 +0:10|    |OVER"), "from 10 minutes +H:MM, the colon blinking")
        var c = Controller<T>(program: program)
        _ = c.perform(.start, at: .s(0))
        #expect(c.session.state(at: .s(100_000)) == .running, "overtime runs until STOP")
        #expect(c.status(at: .s(100)).phase == .work)
    }
}
