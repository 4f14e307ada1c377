import ControlProtocol
import JSON

/// The part of a clock's session that a group shares (the `session` member of state lines,
/// docs/control-protocol.md; docs/sync.md): the program, whether it is ready, running or
/// paused, the running time before the last pause, and — while running — the anchor as a
/// CLOCK_REALTIME instant.
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

    /// The clock's own limit (`SessionShare.maximumElapsedNanoseconds`, 100 years): its
    /// `adopt` refuses more.
    public static let maximumElapsedNanoseconds = SessionShare.maximumElapsedNanoseconds
    /// Longest program spec accepted (a DSL line is a few dozen bytes).
    public static let maximumProgramBytes = 1024
    /// The members this type reads and writes, in the contract's order.
    static let memberNames = ["program", "run", "elapsed_before_ns", "anchor_realtime_ns"]

    /// The four members, in the contract's order and spelling.
    public var members: [JSONMember] {
        [JSONMember("program", .string(program)), JSONMember("run", .string(run.rawValue)),
         JSONMember("elapsed_before_ns", .int(elapsedBeforeNanoseconds)),
         JSONMember("anchor_realtime_ns", anchorRealtimeNanoseconds.map { .int($0) } ?? .null)]
    }

    /// The session as the clock shares it (`ControlProtocol.SessionShare`, without `adopted`).
    public init(_ share: SessionShare) {
        self.init(program: share.program, run: Run(rawValue: share.run.rawValue) ?? .ready,
                  elapsedBeforeNanoseconds: share.elapsedBeforeNanoseconds,
                  anchorRealtimeNanoseconds: share.anchorRealtimeNanoseconds)
    }

    /// Reads the four members from `object` (other members are the caller's business) with
    /// the clock's own validator, `SessionShare.parse` — a session the clock would refuse to
    /// adopt (a ready one with running time, a paused one without) is malformed here too —
    /// plus this side's limit on the program's length. The error is one line naming the member.
    public static func read(from object: JSONValue) throws(GroupSyncProblem) -> SharedSession {
        if let spec = object["program"]?.string, spec.utf8.count > maximumProgramBytes {
            throw GroupSyncProblem("\"program\" must be a non-empty string of at most \(maximumProgramBytes) bytes")
        }
        let four = JSONValue.object(memberNames.compactMap { name in object[name].map { JSONMember(name, $0) } })
        do {
            return SharedSession(try SessionShare.parse(four, withAdopted: false))
        } catch {
            throw GroupSyncProblem(error.description)
        }
    }
}

/// What is wrong with a group message, a state line's session or an adopt reply: one line.
public struct GroupSyncProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
