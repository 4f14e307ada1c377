import JSON

/// A clock's session as the control socket shares it (docs/control-protocol.md "The session"):
/// the `session` member of every state line and of the `adopt` command,
///
///     {"program": "boxing", "run": "running", "elapsed_before_ns": 0,
///      "anchor_realtime_ns": 1795412345678901234, "adopted": 7}
///
/// `finished` is never shared: every clock derives it from the program's total.
public struct SessionShare: Sendable, Hashable {
    /// The stored session's run state (`Session.anchor` set → running; else elapsed 0 →
    /// ready; else paused). Clock mode is `ready` with the clock program.
    public enum Run: String, Sendable, Hashable, CaseIterable {
        case ready, running, paused
    }

    /// `Program.name`: a preset, a `[programs]` name or a DSL line.
    public var program: String
    public var run: Run
    /// `Session.elapsedBefore` in nanoseconds, `0 ... maximumElapsedNanoseconds`.
    public var elapsedBeforeNanoseconds: Int64
    /// The anchor as CLOCK_REALTIME nanoseconds since the Unix epoch; set exactly when running.
    public var anchorRealtimeNanoseconds: Int64?
    /// The `token` of the `adopt` that made this session, until anything else changes it.
    public var adopted: Int64?

    /// `TimeLimits.maximumElapsed` (100 years of 366 days) in nanoseconds: the longest running
    /// time a session holds (RoundClockCore's constant, restated here: this target is pure
    /// wire format; `SessionAdoptionTests.theSessionIsSharedOnCLOCK_REALTIME` checks they agree).
    public static let maximumElapsedNanoseconds: Int64 = 100 * 366 * 86_400 * 1_000_000_000

    public init(program: String, run: Run, elapsedBeforeNanoseconds: Int64, anchorRealtimeNanoseconds: Int64? = nil, adopted: Int64? = nil) {
        self.program = program
        self.run = run
        self.elapsedBeforeNanoseconds = elapsedBeforeNanoseconds
        self.anchorRealtimeNanoseconds = anchorRealtimeNanoseconds
        self.adopted = adopted
    }

    /// The members of a state line's `session`, in the order they are written.
    public static let memberNames = ["program", "run", "elapsed_before_ns", "anchor_realtime_ns", "adopted"]

    /// The object, with `adopted` (state lines) or without it (`adopt`'s `session`).
    public func json(withAdopted: Bool = true) -> JSONValue {
        .object(members(withAdopted: withAdopted))
    }

    /// The object's members in `memberNames` order, for a message that holds them among its
    /// own (the gateway's group message).
    public func members(withAdopted: Bool = true) -> [JSONMember] {
        var members = [
            JSONMember("program", .string(program)), JSONMember("run", .string(run.rawValue)),
            JSONMember("elapsed_before_ns", .int(elapsedBeforeNanoseconds)),
            JSONMember("anchor_realtime_ns", anchorRealtimeNanoseconds.map { .int($0) } ?? .null),
        ]
        if withAdopted { members.append(JSONMember("adopted", adopted.map { .int($0) } ?? .null)) }
        return members
    }

    /// The object as one line (no newline).
    public var line: String { json().encoded }

    /// Reads a session object. `adopted` (state lines) is allowed only with `withAdopted`
    /// (the `adopt` command's `session` has none). Every error is one line.
    public static func parse(_ value: JSONValue, withAdopted: Bool) throws(ControlError) -> SessionShare {
        guard let members = value.members else { throw ControlError("\"session\" must be an object") }
        let allowed = withAdopted ? memberNames : memberNames.filter { $0 != "adopted" }
        if let extra = members.first(where: { !allowed.contains($0.key) }) {
            throw ControlError("unknown member \(JSONValue.quoted(extra.key)) in \"session\"")
        }
        guard let programValue = value["program"] else { throw ControlError("\"session\" needs \"program\"") }
        guard let program = programValue.string, !program.isEmpty else { throw ControlError("\"session\".\"program\" must be a non-empty string") }
        guard let runValue = value["run"] else { throw ControlError("\"session\" needs \"run\"") }
        guard let runWord = runValue.string, let run = Run(rawValue: runWord) else {
            throw ControlError("\"session\".\"run\" must be \"ready\", \"running\" or \"paused\"")
        }
        guard let elapsedValue = value["elapsed_before_ns"] else { throw ControlError("\"session\" needs \"elapsed_before_ns\"") }
        guard let elapsed = elapsedValue.int.map(Int64.init), elapsed >= 0, elapsed <= maximumElapsedNanoseconds else {
            throw ControlError("\"session\".\"elapsed_before_ns\" must be a whole number of nanoseconds from 0 to \(maximumElapsedNanoseconds)")
        }
        let anchor: Int64?
        switch value["anchor_realtime_ns"] {
        case nil, .null?: anchor = nil
        case let anchorValue?:
            guard let ns = anchorValue.int.map(Int64.init), ns >= 0 else {
                throw ControlError("\"session\".\"anchor_realtime_ns\" must be null or whole nanoseconds since the Unix epoch (0 to \(Int64.max))")
            }
            anchor = ns
        }
        if run == .running, anchor == nil { throw ControlError("\"session\": a running session needs \"anchor_realtime_ns\"") }
        if run != .running, anchor != nil { throw ControlError("\"session\": only a running session has an \"anchor_realtime_ns\" (it is \(run.rawValue))") }
        if run == .ready, elapsed != 0 { throw ControlError("\"session\": a ready session has \"elapsed_before_ns\" 0") }
        if run == .paused, elapsed == 0 { throw ControlError("\"session\": a paused session has \"elapsed_before_ns\" above 0") }
        var adopted: Int64?
        if let adoptedValue = value["adopted"], adoptedValue != .null {
            adopted = try token(adoptedValue, name: "\"session\".\"adopted\"")
        }
        return SessionShare(program: program, run: run, elapsedBeforeNanoseconds: elapsed, anchorRealtimeNanoseconds: anchor, adopted: adopted)
    }

    /// Reads a session object written on one line (for clients: the gateway, tests).
    public static func parse(line: String, withAdopted: Bool = true) throws(ControlError) -> SessionShare {
        let value: JSONValue
        do {
            value = try JSONParser(maxBytes: ControlLimits.maxLineBytes, maxDepth: ControlLimits.maxDepth).parse(line)
        } catch {
            throw ControlError("not JSON: \(error)")
        }
        return try parse(value, withAdopted: withAdopted)
    }

    /// An `adopt` token: a whole number from 0 to 2^63 - 1.
    static func token(_ value: JSONValue, name: String) throws(ControlError) -> Int64 {
        guard let token = value.int.map(Int64.init), token >= 0 else {
            throw ControlError("\(name) must be a whole number from 0 to \(Int64.max)")
        }
        return token
    }
}
