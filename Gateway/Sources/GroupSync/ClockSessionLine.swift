import ControlProtocol
import JSON

/// The clock's side of the wire (docs/control-protocol.md): the `session` member of each state
/// line, and the `adopt` command with its reply. Read here from the socket's JSON, so the
/// group sync depends on the contract, not on the clock's code.
public struct ClockSession: Sendable, Hashable {
    /// The session as the group holds it: without `adopted`, which is kept apart below.
    public var session: SessionShare
    /// The token of the `adopt` that made this session, `nil` after any other change.
    public var adopted: Int64?

    public init(session: SessionShare, adopted: Int64?) {
        var session = session
        session.adopted = nil
        self.session = session
        self.adopted = adopted
    }

    /// The session of a state line; `nil` for a line without one (an `{"ok": …}` reply, the
    /// gateway's own "clock unreachable", a clock older than the contract). A state line
    /// whose session is present but malformed is an error (the clock broke the contract).
    public static func parse(stateLine line: String) throws(GroupSyncProblem) -> ClockSession? {
        guard let value = try? JSONParser(maxBytes: ControlSocketLimits.maximumStateLine).parse(line),
              value["state"] != nil, let object = value["session"], object.members != nil else { return nil }
        // the clock's five members (a newer clock may add more: those are not ours to judge)
        let share = try SessionShare.read(from: object, withAdopted: true)
        return ClockSession(session: share, adopted: share.adopted)
    }
}

public enum ControlSocketLimits {
    /// Longest state line read (the gateway's line framer allows the same).
    public static let maximumStateLine = 64 * 1024
}

/// `{"command": "adopt", "token": 7, "session": {…}}` (docs/control-protocol.md, `adopt`).
public struct AdoptCommand: Sendable, Hashable {
    public var token: Int64
    public var session: SessionShare

    public init(token: Int64, session: SessionShare) {
        self.token = token
        self.session = session
    }

    /// The request line, without its newline (the `session` has no `adopted`).
    public var line: String { ControlRequest.adopt(token: token, session: session).line }

    /// The clock's answer: `nil` when it adopted, else why not (its own words, or that
    /// the reply is not one).
    public static func refusal(inReply reply: String) -> String? {
        switch ControlReply.parse(reply) {
        case .ok?: nil
        case .failed(let why)?: why
        case nil: "not a reply: \(reply.prefix(200))"
        }
    }
}
