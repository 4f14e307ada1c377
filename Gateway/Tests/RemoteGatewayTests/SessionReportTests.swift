@testable import ClockLink
@testable import ClockMQTT
import ControlProtocol
@testable import RemoteGateway
import RoundClockCore
import Testing

/// The session's report on `<prefix>/state`: made from state lines, changing only with the
/// session (a phase, a round, a pause), never with the panels' seconds.
@Suite struct SessionReportTests {
    static let second: Int64 = 1_000_000_000
    /// 2026-11-27T15:00:00Z.
    static let anchor: Int64 = 1_795_791_600 * second

    @Test func instantsAreISO8601InUTCWithAnOffset() {
        #expect(ISO8601.utc(nanoseconds: 0) == "1970-01-01T00:00:00.000+00:00")
        #expect(ISO8601.utc(nanoseconds: Self.anchor + 1_234_567_890) == "2026-11-27T15:00:01.234+00:00")
        #expect(ISO8601.utc(nanoseconds: 951_782_400 * Self.second) == "2000-02-29T00:00:00.000+00:00")
        #expect(ISO8601.utc(nanoseconds: 4_107_542_399 * Self.second + 999_999_999) == "2100-02-28T23:59:59.999+00:00")
        #expect(ISO8601.utc(nanoseconds: -1) == "1969-12-31T23:59:59.999+00:00")
    }

    @Test func aRunningPhaseEndsAtTheAnchorPlusItsEnd() throws {
        // Boxing: prep 10 s, then 3:00 work. 12.4 s after the start: round 1, work, ends at 3:10.
        let line = ClockLines.running(Presets.boxing, anchor: Self.anchor, atSecond: 12)
        let report = SessionReport(line, program: Presets.boxing, realtimeNow: Self.anchor + 12_400_000_000)
        #expect(report.state == "running" && report.phase == "work" && report.round == 1 && report.rounds == 12)
        #expect(report.phaseEndsAt == Self.anchor + 190 * Self.second)
        #expect(report.remaining == 178)
        #expect(report.line == #"{"program": "boxing", "state": "running", "phase": "work", "round": 1, "rounds": 12, "#
            + #""phase_ends_at": "2026-11-27T15:03:10.000+00:00", "remaining": 178}"#)
    }

    @Test func aLineReadJustBeforeItsBoundaryStillNamesItsPhase() {
        // The line of round 1's work, read 1 ms before the gateway's clock reaches 10 s.
        let line = ClockLines.running(Presets.boxing, anchor: Self.anchor, atSecond: 10)
        let report = SessionReport(line, program: Presets.boxing, realtimeNow: Self.anchor + 9_999_000_000)
        #expect(report.phase == "work" && report.phaseEndsAt == Self.anchor + 190 * Self.second)
    }

    @Test func pausedReadyFinishedAndClockModeHaveNoEnd() {
        let paused = ControlState(state: "paused", phase: "work", round: 1, rounds: 12, program: "boxing", brightness: 15, panels: [],
                                  session: SessionShare(program: "boxing", run: .paused, elapsedBeforeNanoseconds: 70_500_000_000))
        let report = SessionReport(paused, program: Presets.boxing, realtimeNow: Self.anchor)
        #expect(report.phaseEndsAt == nil && report.remaining == 120)
        let ready = SessionReport(ClockLines.ready(Presets.boxing), program: Presets.boxing, realtimeNow: Self.anchor)
        #expect(ready.phaseEndsAt == nil && ready.remaining == 10 && ready.phase == "prep")
        let clock = SessionReport(ClockLines.clock(time: "15:00"), program: .wallClock, realtimeNow: Self.anchor)
        #expect(clock.line == #"{"program": "clock", "state": "clock", "phase": "clock", "round": 0, "rounds": 0, "#
            + #""phase_ends_at": null, "remaining": null}"#)
        let stopwatch = SessionReport(ClockLines.running(Presets.stopwatch, anchor: Self.anchor, atSecond: 5),
                                      program: Presets.stopwatch, realtimeNow: Self.anchor + 5 * Self.second)
        #expect(stopwatch.phaseEndsAt == nil && stopwatch.remaining == nil, "an open-ended phase has no end")
        let unknown = SessionReport(ClockLines.running(Presets.boxing, anchor: Self.anchor, atSecond: 12), program: nil, realtimeNow: Self.anchor)
        #expect(unknown.phaseEndsAt == nil && unknown.phase == "work", "a program the gateway cannot resolve: no end")
    }

    @Test func theReportIsOfTheProgramTheClockDefinesNotTheGatewaysOfTheSameName() {
        var reports = SavedProgramX.gatewayReports()
        var last: SessionReport?
        for second in 0...8 {
            last = reports.report(after: SavedProgramX.running(anchor: Self.anchor, atSecond: second),
                                  realtimeNow: Self.anchor + Int64(second) * Self.second + 400_000_000)
        }
        // 8.4 s in: round 1's JUMP, from 0:05 to 0:12 (the gateway's `x` would be in prep until 0:10).
        #expect(last?.phase == "work" && last?.round == 1 && last?.rounds == 2)
        #expect(last?.phaseEndsAt == Self.anchor + 12 * Self.second, "\(String(describing: last?.line))")
        #expect(last?.remaining == 4, "\(String(describing: last?.line))")
    }

    @Test func withoutTheClocksDefinitionThePhaseHasNoEnd() {
        var reports = SavedProgramX.gatewayReports()
        let line = { (second: Int) in SavedProgramX.running(anchor: Self.anchor, atSecond: second) }
        #expect(reports.report(after: line(0), realtimeNow: Self.anchor)?.phaseEndsAt == Self.anchor + 5 * Self.second)
        #expect(reports.report(after: ClockLink.unreachableLine, realtimeNow: Self.anchor) == nil)
        // Back after a restart into an older clock: no definition, so no end from a name.
        let older = reports.report(after: line(6), realtimeNow: Self.anchor + 6 * Self.second)
        #expect(older?.phase == "work" && older?.phaseEndsAt == nil && older?.remaining == nil)
        let another = ClockLines.running(Presets.tabata, anchor: Self.anchor, atSecond: 3, defined: false).line
        #expect(reports.report(after: another, realtimeNow: Self.anchor)?.remaining == nil, "a name alone is not a program")
    }

    @Test func reportsDifferOnlyWhenTheSessionChanges() {
        let program = Presets.boxing
        let reports = (0..<400).map { second in
            SessionReport(ClockLines.running(program, anchor: Self.anchor, atSecond: second), program: program,
                          realtimeNow: Self.anchor + Int64(second) * Self.second + 3_000_000)
        }
        var published = [reports[0]]
        for report in reports.dropFirst() where report.differs(from: published.last!) { published.append(report) }
        // 400 s of boxing: prep, work 1, rest 1, work 2 (from 250 s).
        #expect(published.map { "\($0.phase) \($0.round)" } == ["prep 0", "work 1", "rest 1", "work 2"])
        let paused = SessionReport(program: "boxing", state: "paused", phase: "work", round: 2, rounds: 12, remaining: 30)
        #expect(paused.differs(from: published.last!))
        #expect(!paused.differs(from: paused) && paused.differs(from: SessionReport(program: "boxing", state: "paused", phase: "work",
                                                                                     round: 2, rounds: 12, remaining: 20)),
                "paused twice at different times: a new report")
    }
}

/// State lines as the clock writes them, for a program run from `anchor` (CLOCK_REALTIME ns).
/// Each carries the program's definition unless `defined` is false (an older clock's lines).
enum ClockLines {
    static func running(_ program: Program, anchor: Int64, atSecond second: Int, defined: Bool = true) -> ControlState {
        let elapsed = Duration.seconds(second)
        let index = program.phaseIndex(atElapsed: elapsed)
        let phase = program.phases[index]
        let finished = program.total.map { elapsed >= $0 } ?? false
        let shown = program.end(ofPhase: index).map { $0 - elapsed } ?? (elapsed - program.starts[index])
        let seconds = Int(shown.components.seconds)
        return ControlState(state: finished ? "finished" : "running", phase: phase.kind.rawValue, round: phase.round, rounds: program.rounds,
                            program: program.name, brightness: 15,
                            panels: [.init(role: "time", text: "\(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60)")],
                            session: SessionShare(program: program.name, run: .running, elapsedBeforeNanoseconds: 0, anchorRealtimeNanoseconds: anchor),
                            definition: defined ? program : nil)
    }

    static func ready(_ program: Program, defined: Bool = true) -> ControlState {
        ControlState(state: "ready", phase: program.phases[0].kind.rawValue, round: 0, rounds: program.rounds, program: program.name,
                     brightness: 15, panels: [], session: SessionShare(program: program.name, run: .ready, elapsedBeforeNanoseconds: 0),
                     definition: defined ? program : nil)
    }

    /// Clock mode: the time of day, with or without its colon.
    static func clock(time: String) -> ControlState {
        ControlState(state: "clock", phase: "clock", round: 0, rounds: 0, program: "clock", brightness: 15,
                     panels: [.init(role: "time", text: time)], session: SessionShare(program: "clock", run: .ready, elapsedBeforeNanoseconds: 0),
                     definition: .wallClock)
    }
}

/// A clock running its saved program `x` (prep 0:05, then 2 rounds of JUMP 0:07 and BRTH
/// 0:03) while the gateway's config says `x` is `8 x 0:20/0:10`: the lines as that clock
/// writes them, with the definition on the first one only (docs/control-protocol.md).
enum SavedProgramX {
    static func clocks(jump: Int64 = 7) -> Program {
        var plan = IntervalPlan(prep: .seconds(5), intervals: [
            Interval(label: "JUMP", length: .seconds(jump), halfway: true, callout: "jumps"),
            Interval(label: "BRTH", length: .seconds(3), kind: .rest, callout: "breathe"),
        ])
        plan.rounds = 2
        return (try? plan.program(name: "x", label: "XX")) ?? .wallClock
    }

    static let gateways = (try? ProgramSpec.parse("8 x 0:20/0:10").named("x")) ?? .wallClock

    /// `x`'s definition on the clock's line, JUMP `jump` seconds long.
    static func definition(jump: Int64 = 7) -> String {
        let rounds = (1...2).map { round in
            #"{"kind": "work", "length_ns": \#(jump)000000000, "round": \#(round), "label": "JUMP", "callout": "jumps", "#
                + #""halfway": "halfway"}, {"kind": "rest", "length_ns": 3000000000, "round": \#(round), "label": "BRTH", "#
                + #""callout": "breathe"}"#
        }
        return #"{"kind": "intervals", "label": "XX", "phases": [{"kind": "prep", "length_ns": 5000000000, "round": 0}, "#
            + rounds.joined(separator: ", ") + "]}"
    }

    /// `state`'s line (written without a definition) with `definition` added.
    static func line(_ state: ControlState, definition: String?) -> String {
        guard let definition else { return state.line }
        return String(state.line.dropLast()) + #", "definition": "# + definition + "}"
    }

    /// The clock's line `second` seconds into a run of `x` started at `anchor`.
    static func running(anchor: Int64, atSecond second: Int) -> String {
        line(ClockLines.running(clocks(), anchor: anchor, atSecond: second, defined: false), definition: second == 0 ? definition() : nil)
    }

    /// What the gateway makes of the clock's lines for `<prefix>/state`.
    static func gatewayReports() -> ClockReports { ClockReports() }

    /// The TV page's feed as the gateway makes it.
    static func gatewayFeed() -> DisplayFeed { DisplayFeed(utcOffset: { _ in 3600 }) }
}
