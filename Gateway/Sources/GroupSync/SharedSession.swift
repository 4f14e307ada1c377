import JSON
import RoundClockCore

/// The part of a clock's session that a group shares (docs sync-contract.md §1, "State lines
/// carry the session"; §3): the program, whether it is ready, running or paused, the running
/// time before the last pause, and — while running — the anchor as a CLOCK_REALTIME instant.
/// `finished` is never shared: every member derives it from the program's total.
public struct SharedSession: Sendable, Hashable {
    public enum Run: String, Sendable, Hashable, CaseIterable {
        case ready, running, paused
    }

    /// The program spec (`Program.name`: a preset, a `[programs]` name or a DSL line).
    public var program: String
    public var run: Run
    /// `Session.elapsedBefore` in nanoseconds, within `0 ... maximumElapsedNanoseconds`.
    public var elapsedBeforeNanoseconds: Int64
    /// The anchor, nanoseconds since the Unix epoch (CLOCK_REALTIME); set iff running.
    public var anchorRealtimeNanoseconds: Int64?

    public init(program: String, run: Run, elapsedBeforeNanoseconds: Int64, anchorRealtimeNanoseconds: Int64?) {
        self.program = program
        self.run = run
        self.elapsedBeforeNanoseconds = elapsedBeforeNanoseconds
        self.anchorRealtimeNanoseconds = anchorRealtimeNanoseconds
    }

    /// `TimeLimits.maximumElapsed` (100 years) in nanoseconds: the clock's `adopt` refuses more.
    public static let maximumElapsedNanoseconds = TimeLimits.maximumElapsed.wholeNanoseconds
    /// Longest program spec accepted (a DSL line is a few dozen bytes).
    public static let maximumProgramBytes = 1024

    /// The four members, in the contract's order and spelling.
    public var members: [JSONMember] {
        [JSONMember("program", .string(program)), JSONMember("run", .string(run.rawValue)),
         JSONMember("elapsed_before_ns", .int(elapsedBeforeNanoseconds)),
         JSONMember("anchor_realtime_ns", anchorRealtimeNanoseconds.map { .int($0) } ?? .null)]
    }

    /// Reads the four members from `object` (other members are the caller's business).
    /// The error is one line naming the member.
    public static func read(from object: JSONValue) throws(GroupSyncProblem) -> SharedSession {
        guard let program = object["program"] else { throw GroupSyncProblem("missing \"program\"") }
        guard let spec = program.string, !spec.isEmpty, spec.utf8.count <= maximumProgramBytes else {
            throw GroupSyncProblem("\"program\" must be a non-empty string of at most \(maximumProgramBytes) bytes")
        }
        guard let runWord = object["run"]?.string, let run = Run(rawValue: runWord) else {
            throw GroupSyncProblem("\"run\" must be \"ready\", \"running\" or \"paused\"")
        }
        guard let elapsed = object["elapsed_before_ns"]?.int, (0...maximumElapsedNanoseconds).contains(Int64(elapsed)) else {
            throw GroupSyncProblem("\"elapsed_before_ns\" must be a whole number of nanoseconds in 0...\(maximumElapsedNanoseconds)")
        }
        let anchor: Int64?
        switch object["anchor_realtime_ns"] {
        case .null?, nil: anchor = nil
        case let value?:
            guard let nanoseconds = value.int, nanoseconds >= 0 else {
                throw GroupSyncProblem("\"anchor_realtime_ns\" must be null or a non-negative whole number of nanoseconds")
            }
            anchor = Int64(nanoseconds)
        }
        guard (run == .running) == (anchor != nil) else {
            throw GroupSyncProblem(run == .running ? "a running session needs \"anchor_realtime_ns\""
                                                   : "\"anchor_realtime_ns\" must be null unless running")
        }
        return SharedSession(program: spec, run: run, elapsedBeforeNanoseconds: Int64(elapsed), anchorRealtimeNanoseconds: anchor)
    }
}

/// What is wrong with a group message, a state line's session or an adopt reply: one line.
public struct GroupSyncProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
