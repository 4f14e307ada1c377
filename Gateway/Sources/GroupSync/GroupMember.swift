import ControlProtocol

/// One member of a group, as a pure state machine (docs/sync.md): fed what its
/// clock's state lines say about the session, the group messages the broker delivers and
/// the broker connection's ups and downs, it answers with what to do — adopt a session on
/// the clock, publish a message (retained), log a line. No clock, no I/O: the gateway's
/// `GroupSyncService` feeds it and carries out its effects; the tests replay it.
///
/// Rules (docs/sync.md):
/// - A change on the clock that no `adopt` made (a button, a socket command, a class start)
///   is a local change: published as version current + 1 from this member.
/// - A received message higher than the current one (by (version, member)) is adopted; a
///   lower one is logged as stale and the current one republished, so the broker's
///   retained message converges on the winner; an equal one is ignored.
/// - While the broker is away, local changes are kept; after reconnecting the member waits
///   for the broker's retained message (`settled`): a higher one is adopted, a lower one or
///   none at all gets the current message published.
/// - Whenever the clock is (re)connected, it is given the current group session if it
///   shows another one (a restarted clock). Until this member has published or adopted
///   anything, its clock's own session is only provisional: any group message beats it.
public struct GroupMember: Sendable {
    public enum Input: Sendable, Hashable {
        /// A state line's session; `realtimeNanoseconds` is CLOCK_REALTIME now.
        case clock(ClockSession, realtimeNanoseconds: Int64)
        /// The clock's socket closed: its next state line is looked at afresh.
        case clockLost
        /// The clock refused the `adopt` with this token, or did not answer it.
        case adoptFailed(token: Int64, reason: String)
        /// A payload from the group topic (retained or live).
        case received([UInt8])
        /// Connected to the broker and subscribed to the group topic.
        case connected
        /// Long enough after `connected` for the broker's retained message to have arrived.
        case settled
        case disconnected
        /// The clock's running session is to be mapped afresh onto its clock (group time
        /// moved against it): adopts the current session again.
        case remap
    }

    public enum Effect: Sendable, Hashable {
        case adopt(AdoptCommand)
        /// Publish retained, QoS 1.
        case publish(GroupMessage)
        case log(GroupLog)
    }

    enum Link: Sendable, Hashable { case down, settling, up }

    public let member: String
    /// The group session this member holds; `nil` before the clock or the group said anything.
    public private(set) var current: GroupMessage?
    /// `current` is only this clock's first session, neither published nor adopted.
    public private(set) var provisional = false
    /// The session the clock showed last, with its adopt token; `nil` until its next state
    /// line is a first look.
    private var clockLine: ClockSession?
    private var clockSession: SessionShare? { clockLine?.session }
    private var nextToken: Int64
    private let firstToken: Int64
    /// The last `adopt` sent, and the session it carried.
    private var lastAdopt: AdoptCommand?
    private var link = Link.down
    private var heardSinceConnect = false
    private var unpublished = false

    /// `member` must pass `MemberID.problem`; adopt tokens count up from `firstToken`.
    public init(member: String, firstToken: Int64 = 1) {
        self.member = member
        self.firstToken = firstToken
        self.nextToken = firstToken
    }

    public mutating func handle(_ input: Input) -> [Effect] {
        switch input {
        case .clock(let line, let now): return clockChanged(line, now: now)
        case .clockLost:
            clockLine = nil
            return []
        case .adoptFailed(let token, let reason): return [.log(.adoptFailed(token: token, reason: reason))]
        case .received(let payload): return received(payload)
        case .connected:
            link = .settling
            heardSinceConnect = false
            return []
        case .settled:
            guard link == .settling else { return [] }
            link = .up
            guard let current, unpublished || !heardSinceConnect else { return [] }
            return publish(current, unpublished && !provisional ? .keptWhileAway : .brokerHeldNone)
        case .disconnected:
            link = .down
            return []
        case .remap:
            // The clock shows the current session, its anchor as mapped before (the instants
            // differ by the mapping, nothing else may).
            guard let current, !provisional, current.session.run == .running, let shown = clockSession, shown.run == .running,
                  shown.program == current.session.program,
                  shown.elapsedBeforeNanoseconds == current.session.elapsedBeforeNanoseconds else { return [] }
            return adopt(current.session)
        }
    }

    private mutating func clockChanged(_ line: ClockSession, now: Int64) -> [Effect] {
        guard let shown = clockLine else {
            clockLine = line
            if let current, !provisional {
                return current.session == line.session ? [] : [.log(.clockRestored(current))] + adopt(current.session)
            }
            let first = GroupMessage(version: 0, member: member, session: line.session, issuedRealtimeNanoseconds: now)
            current = first
            provisional = true
            unpublished = true
            return link == .up ? publish(first, .brokerHeldNone) : []
        }
        // Equal lines: the session did not change (docs/control-protocol.md). The same session
        // with another token is still news: the echo of an adopt.
        guard shown != line else { return [] }
        clockLine = line
        guard let token = line.adopted else {
            guard shown.session != line.session else { return [] }
            let version = min((current?.version ?? -1) + 1, GroupMessage.maximumVersion)
            let change = GroupMessage(version: version, member: member, session: line.session, issuedRealtimeNanoseconds: now)
            current = change
            provisional = false
            unpublished = true
            return link == .up ? publish(change, .localChange) : [.log(.keptWhileAway(change))]
        }
        guard let current else { return [] }
        if let last = lastAdopt, (firstToken..<last.token).contains(token) { return [] }  // a later adopt is on its way
        if let last = lastAdopt, token == last.token, last.session == current.session { return [] }  // the clock's own clamping
        return current.session == line.session ? [] : adopt(current.session)
    }

    private mutating func received(_ payload: [UInt8]) -> [Effect] {
        let message: GroupMessage
        do {
            message = try GroupMessage.parse(payload)
        } catch {
            return [.log(.malformed(error.description))]
        }
        heardSinceConnect = true
        guard let current, !provisional, message <= current else {
            if current == message { return [] }
            self.current = message
            provisional = false
            unpublished = false
            let effects: [Effect] = [.log(.adopted(message))]
            guard let shown = clockSession, shown != message.session else { return effects }
            return effects + adopt(message.session)
        }
        if message == current {
            unpublished = false
            return []
        }
        return [.log(.stale(message, current: current))] + publish(current, .republished)
    }

    private mutating func adopt(_ session: SessionShare) -> [Effect] {
        let command = AdoptCommand(token: nextToken, session: session)
        nextToken = nextToken == Int64.max ? firstToken : nextToken + 1
        lastAdopt = command
        return [.adopt(command)]
    }

    private mutating func publish(_ message: GroupMessage, _ why: GroupLog.PublishReason) -> [Effect] {
        unpublished = false
        provisional = false
        return [.publish(message), .log(.published(message, why))]
    }
}
