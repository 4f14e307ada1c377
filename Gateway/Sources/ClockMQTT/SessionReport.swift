import ControlProtocol
import JSON
import RoundClockCore

/// What `<prefix>/state` carries (docs/mqtt-home-assistant.md): the session, not the display.
/// The clock sends a state line on every display change (each second of a round, each colon
/// blink in clock mode); this report changes only when the program, the state, the phase or
/// the round changes, or when the phase's end moves (a start, a pause, a resume, a skip, an
/// adjustment). A viewer counts down to `phase_ends_at` itself.
public struct SessionReport: Sendable, Hashable {
    public var program: String
    /// `ready`, `running`, `paused`, `finished` or `clock`, as on the state line.
    public var state: String
    /// `prep`, `work`, `rest` or `clock`, as on the state line.
    public var phase: String
    public var round: Int
    public var rounds: Int
    /// CLOCK_REALTIME nanoseconds at which the current phase ends; set only while a phase of
    /// known length runs.
    public var phaseEndsAt: Int64?
    /// Whole seconds left in the phase (the ceiling, as a counting-down panel shows it) when the
    /// report was made: exact while paused or ready; while running, the figure at the last change.
    public var remaining: Int?

    public init(program: String, state: String, phase: String, round: Int, rounds: Int, phaseEndsAt: Int64? = nil, remaining: Int? = nil) {
        self.program = program
        self.state = state
        self.phase = phase
        self.round = round
        self.rounds = rounds
        self.phaseEndsAt = phaseEndsAt
        self.remaining = remaining
    }

    /// The report of a state line. `program` is the line's program resolved as the clock
    /// resolves it (`nil`: unknown here, then the phase's end is unknown too); `realtimeNow`
    /// is CLOCK_REALTIME now, in nanoseconds.
    public init(_ line: ControlState, program: Program?, realtimeNow: Int64) {
        self.init(program: line.program, state: line.state, phase: line.phase, round: line.round, rounds: line.rounds)
        guard let program, program.kind != .wallClock, !program.phases.isEmpty, let session = line.session,
              line.state == "running" || line.state == "paused" || line.state == "ready" else { return }
        var elapsed = session.elapsedBeforeNanoseconds
        if let anchor = session.anchorRealtimeNanoseconds { elapsed += max(0, realtimeNow - anchor) }
        let index = Self.phaseIndex(of: line, in: program, atElapsed: .nanoseconds(elapsed))
        guard program.phases[index].counting != .overtime, let end = program.end(ofPhase: index)?.wholeNanoseconds else { return }
        let left = max(0, end - elapsed)
        remaining = Int((left + 999_999_999) / 1_000_000_000)
        if line.state == "running", let anchor = session.anchorRealtimeNanoseconds {
            phaseEndsAt = anchor + (end - session.elapsedBeforeNanoseconds)
        }
    }

    /// The phase at `elapsed`, or its neighbour when that one is what the line shows (the
    /// line is read a moment after the clock wrote it, so a boundary may lie in between).
    static func phaseIndex(of line: ControlState, in program: Program, atElapsed elapsed: Duration) -> Int {
        let index = program.phaseIndex(atElapsed: elapsed)
        let shows = { (i: Int) in program.phases[i].kind.rawValue == line.phase && program.phases[i].round == line.round }
        return [index, index - 1, index + 1].first { $0 >= 0 && $0 < program.phases.count && shows($0) } ?? index
    }

    /// Whether publishing this report after `other` would tell a viewer anything new. While a
    /// phase runs, `remaining` goes down without news: `phase_ends_at` already says it.
    public func differs(from other: SessionReport) -> Bool {
        var mine = self, theirs = other
        if phaseEndsAt != nil && other.phaseEndsAt != nil { mine.remaining = nil; theirs.remaining = nil }
        return mine != theirs
    }

    public var json: JSONValue {
        .object([
            JSONMember("program", .string(program)), JSONMember("state", .string(state)), JSONMember("phase", .string(phase)),
            JSONMember("round", .int(round)), JSONMember("rounds", .int(rounds)),
            JSONMember("phase_ends_at", phaseEndsAt.map { .string(ISO8601.utc(nanoseconds: $0)) } ?? .null),
            JSONMember("remaining", remaining.map { .int($0) } ?? .null),
        ])
    }

    public var line: String { json.encoded }
}

/// ISO 8601 date and time in UTC with an explicit offset, as Home Assistant's timestamp
/// sensors take it: `2026-11-27T15:30:12.345+00:00`.
public enum ISO8601 {
    public static func utc(nanoseconds: Int64) -> String {
        let milliseconds = nanoseconds >= 0 ? nanoseconds / 1_000_000 : (nanoseconds - 999_999) / 1_000_000
        let (days, msOfDay) = (floorDiv(milliseconds, 86_400_000), floorMod(milliseconds, 86_400_000))
        let (year, month, day) = civil(daysSinceEpoch: days)
        let seconds = msOfDay / 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):"
            + "\(pad(seconds % 60, 2)).\(pad(msOfDay % 1000, 3))+00:00"
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's `civil_from_days`).
    static func civil(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }
    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }
    static func pad(_ n: Int64, _ width: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
