import ConnectionAdmission
import NIOConcurrencyHelpers
import NIOCore

/// The open connections: an `AdmissionPolicy` keyed by each client's network
/// (`AddressKey.network`) under a lock, the channels its decisions close, and the counts that
/// `report` sums up once a minute. A channel's place is given back when it closes.
public final class ConnectionTable: Sendable {
    public let bounds: ConnectionBounds
    public typealias Policy = AdmissionPolicy<AddressKey>

    public struct Counts: Sendable, Hashable {
        /// Closed to make room for a newer one from the same client.
        public var closedForSameClient = 0
        /// Closed to make room with all places taken (the busiest client's idlest).
        public var closedForRoom = 0
        /// Closed after an answer sent over `total`, or refused with every place a phone's.
        public var closedOverTotal = 0
        public var timedOut = 0
        /// TV pages refused at a viewer cap, and viewers closed to make room for a phone.
        public var refusedViewers = 0
        public var viewersClosed = 0
        /// Connections closed for leaving what they were sent unread.
        public var stalled = 0
        /// Connections that ended, for whatever reason, before a whole request head.
        public var endedBeforeRequest = 0
        /// The client that lost most connections to its own newer ones since the last `takeCounts`.
        public var busiestClient: String?
        public var isEmpty: Bool {
            closedForSameClient + closedForRoom + closedOverTotal + timedOut + refusedViewers + viewersClosed + stalled
                + endedBeforeRequest == 0
        }
    }

    /// Clients whose connections closed for their own newer ones are counted one by one
    /// between two reports (for `busiestClient`).
    static let trackedClients = 256

    private struct State {
        var policy: Policy
        var next: UInt64 = 0
        var channels: [UInt64: any Channel] = [:]
        var bySocket: [ObjectIdentifier: UInt64] = [:]
        /// The connections with no whole request head yet.
        var headless: Set<UInt64> = []
        var counts = Counts()
        var closedBy: [AddressKey: Int] = [:]

        /// Carries out `decision` for the event of `serial`: closes the connection it names, or
        /// tells that `serial` itself is refused. Returns whether `serial` keeps its place and
        /// the channel to close.
        mutating func carryOut(_ decision: Policy.Decision, for serial: UInt64, client: AddressKey?) -> (Bool, (any Channel)?) {
            switch decision {
            case .keep:
                return (true, nil)
            case .keepClosing(let victim, let room):
                switch room {
                case .sameClient:
                    counts.closedForSameClient += 1
                    if let client, closedBy[client] != nil || closedBy.count < ConnectionTable.trackedClients {
                        closedBy[client, default: 0] += 1
                    }
                case .busiestClient: counts.closedForRoom += 1
                case .viewerForPhone: counts.viewersClosed += 1
                }
                return (true, forget(victim))
            case .refuse(let refusal):
                switch refusal {
                case .full: counts.closedOverTotal += 1
                case .viewers: counts.refusedViewers += 1
                case .gone: break
                }
                return (false, nil)
            }
        }

        /// The channel of `serial`, no longer in the table; a connection that ends waiting is counted.
        mutating func forget(_ serial: UInt64) -> (any Channel)? {
            if headless.remove(serial) != nil { counts.endedBeforeRequest += 1 }
            _ = policy.decide(.closed(serial))
            guard let channel = channels.removeValue(forKey: serial) else { return nil }
            bySocket[ObjectIdentifier(channel)] = nil
            return channel
        }
    }

    private let state: NIOLockedValueBox<State>

    public init(bounds: ConnectionBounds) {
        self.bounds = bounds
        state = NIOLockedValueBox(State(policy: Policy(bounds: bounds)))
    }

    /// Takes a place for `channel`, or returns `nil` when it must be closed unserved. The
    /// place is given back when the channel closes.
    public func admit(_ channel: any Channel) -> UInt64? {
        let client = AddressKey.network(channel.remoteAddress)
        let (serial, victim): (UInt64?, (any Channel)?) = state.withLockedValue { s in
            s.next += 1
            let serial = s.next
            let (keep, victim) = s.carryOut(s.policy.decide(.accepted(serial, client)), for: serial, client: client)
            guard keep else { return (nil, victim) }
            s.channels[serial] = channel
            s.bySocket[ObjectIdentifier(channel)] = serial
            s.headless.insert(serial)
            return (serial, victim)
        }
        victim?.close(promise: nil)
        if let serial {
            channel.closeFuture.whenComplete { [self] _ in _ = state.withLockedValue { $0.forget(serial) } }
        }
        return serial
    }

    /// The connection sent a whole request head; `false`: close it unanswered.
    public func head(_ serial: UInt64, _ head: Policy.Head) -> Bool {
        state.withLockedValue { _ = $0.headless.remove(serial) }
        return decide(.head(serial, head), for: serial)
    }

    /// The connection's answer was sent; `false`: close it now.
    public func answered(_ serial: UInt64) -> Bool {
        decide(.answered(serial), for: serial)
    }

    /// The login on `channel` succeeded: it is a phone's from now on.
    public func loggedIn(_ channel: any Channel) {
        guard let serial = state.withLockedValue({ $0.bySocket[ObjectIdentifier(channel)] }) else { return }
        if !decide(.loggedIn(serial), for: serial) { channel.close(promise: nil) }
    }

    /// Makes `channel`'s connection a viewer, or returns `false` when its client or everyone
    /// already has as many viewers as the bounds allow.
    public func becomeViewer(_ channel: any Channel) -> Bool {
        guard let serial = state.withLockedValue({ $0.bySocket[ObjectIdentifier(channel)] }) else { return false }
        return decide(.asksToView(serial), for: serial)
    }

    private func decide(_ event: Policy.Event, for serial: UInt64) -> Bool {
        let (keep, victim) = state.withLockedValue { s in s.carryOut(s.policy.decide(event), for: serial, client: nil) }
        victim?.close(promise: nil)
        return keep
    }

    /// The connection was closed for sending no head (or finishing no handshake) in time.
    public func timedOut(_ serial: UInt64) {
        state.withLockedValue { $0.counts.timedOut += 1 }
    }

    /// The connection was closed for leaving what it was sent unread.
    public func stalled(_ serial: UInt64) {
        state.withLockedValue { $0.counts.stalled += 1 }
    }

    /// Open connections, in all and from `client` (a network, `AddressKey.network`).
    public func count(from client: AddressKey? = nil) -> Int {
        state.withLockedValue { s in
            guard let client else { return s.policy.connections.count }
            return s.policy.connections.values.count { $0.client == client }
        }
    }

    /// Open viewers, in all.
    public var viewerCount: Int { state.withLockedValue { $0.policy.connections.values.count { $0.kind == .viewer } } }

    /// The counts since the last call, and zero from now on.
    public func takeCounts() -> Counts {
        state.withLockedValue { s in
            var counts = s.counts
            counts.busiestClient = s.closedBy.max { $0.value < $1.value }?.key.description
            s.counts = Counts()
            s.closedBy = [:]
            return counts
        }
    }
}
