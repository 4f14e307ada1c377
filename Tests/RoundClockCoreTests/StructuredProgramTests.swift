import Testing
import TestSupport
@testable import RoundClockCore

/// Structured programs, the presets outside the MODE cycle, halfway and countdown beeps,
/// overtime.
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

extension StructuredProgramTests {
    /// Random plans: built or refused with a `ProgramError`; a built one has the phases its
    /// plan says, sorted signals inside the timeline, and 4-character panels at any instant.
    @Test func randomPlansBuildConsistentTimelines() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("randomPlansBuildConsistentTimelines seed \(seed)")
        var rng = SplitMix64(seed: seed)
        func time() -> Duration { .seconds(Int64(rng.next() % 300) + (rng.next() % 10 == 0 ? 0 : 1)) }
        for _ in 0..<300 {
            let intervals = (0..<Int(rng.next() % 5)).map { _ in
                Interval(label: rng.pick(["ROW", "WALL", "A", "  12"]), length: time(), counting: rng.next() % 3 == 0 ? .up : .down,
                         kind: rng.next() % 4 == 0 ? .rest : .work, halfway: rng.next() % 2 == 0)
            }
            var plan = IntervalPlan(prep: rng.next() % 2 == 0 ? time() : nil, intervals: intervals)
            plan.rounds = Int(rng.next() % 12)
            plan.sets = Int(rng.next() % 11)
            plan.roundRest = rng.next() % 2 == 0 ? time() : nil
            plan.setRest = rng.next() % 2 == 0 ? time() : nil
            plan.countdownBeeps = rng.next() % 2 == 0 ? Int(rng.next() % 12) : nil
            plan.overtime = rng.next() % 3 == 0
            plan.countsRounds = rng.next() % 3 == 0
            let program: Program
            do { program = try plan.program(name: "p", label: "P") } catch { continue }
            let timed = plan.sets * plan.rounds * plan.intervals.count + (plan.prep == nil ? 0 : 1)
                + (plan.roundRest == nil ? 0 : plan.sets * (plan.rounds - 1)) + (plan.setRest == nil ? 0 : plan.sets - 1)
            #expect(program.phases.count == timed + (plan.overtime ? 1 : 0), "seed \(seed)")
            #expect(program.signals.map(\.offset) == program.signals.map(\.offset).sorted(), "seed \(seed)")
            let end = program.starts.last.map { $0 + (program.phases.last?.length ?? .zero) } ?? .zero
            #expect(program.signals.allSatisfy { $0.offset >= .zero && $0.offset <= end }, "seed \(seed)")
            var c = Controller<T>(program: program)
            _ = c.perform(.start, at: .s(0))
            for _ in 0..<20 {
                let at = T(.milliseconds(Int64(rng.next() % UInt64(max(1, end.floorSeconds * 1000 + 5000)))))
                _ = c.advance(to: at)
                let face = c.face(at: at, wallTime: WallTime(sinceEpoch: .zero))
                // Four digit positions each; `.` and `:` light a point or the colon, no position.
                #expect(face.round.text.filter { $0 != "." }.count == 4 && face.phase.text.count == 4, "seed \(seed): \(face)")
            }
        }
    }
}
