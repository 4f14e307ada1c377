import NIOConcurrencyHelpers
import NIOCore

/// How many connections the gateway keeps, and how long one may take to start talking
/// (docs/remote.md, limits).
public struct ConnectionBounds: Sendable, Hashable {
    /// Connections from one client (`AddressKey`: an IP address).
    public var perAddress: Int
    /// Connections from everyone. The unit's `LimitNOFILE=` leaves room for these and more.
    public var total: Int
    /// TV pages without a session (viewers) from one client, and from everyone; they count in
    /// `perAddress` and `total` too.
    public var viewersPerAddress: Int
    public var viewers: Int
    /// From accept to a finished TLS handshake.
    public var handshakeTimeout: Duration
    /// From accept (under TLS: from the finished handshake) to the first request's whole head.
    public var headTimeout: Duration
    /// How long a connection may leave what it is sent unread (the gateway holds at most a
    /// channel's high watermark for it meanwhile) before it is closed.
    public var stallTimeout: Duration

    public static let standard = ConnectionBounds(perAddress: 16, total: 256, handshakeTimeout: .seconds(10), headTimeout: .seconds(10))

    public init(perAddress: Int, total: Int, handshakeTimeout: Duration, headTimeout: Duration,
                viewersPerAddress: Int = 4, viewers: Int = 32, stallTimeout: Duration = .seconds(10)) {
        self.perAddress = perAddress
        self.total = total
        self.viewersPerAddress = viewersPerAddress
        self.viewers = viewers
        self.handshakeTimeout = handshakeTimeout
        self.headTimeout = headTimeout
        self.stallTimeout = stallTimeout
    }
}

/// The open connections, counted per client and in all. A connection over its client's
/// cap is refused. When all places are taken, the oldest connection that has not sent a
/// whole request head yet makes room (a phone sends its head at once; one that sends none
/// is the kind a flood holds open). When every place holds a connection past its head but
/// some hold viewers (TV pages without a session), the new connection gets a place on trial:
/// if its first head is a phone's (`headArrived(_:phone:)`), the oldest viewer is closed to
/// make room, else it is closed. Otherwise the new connection is refused. So viewers never
/// keep a phone out, and the table holds at most `total` + 1 connections.
public final class ConnectionTable: Sendable {
    public let bounds: ConnectionBounds

    public struct Counts: Sendable, Hashable {
        public var refusedPerAddress = 0
        public var refusedFull = 0
        public var evicted = 0
        public var timedOut = 0
        /// TV pages refused at a viewer cap, and viewers closed to make room for a phone.
        public var refusedViewers = 0
        public var viewersClosed = 0
        /// Connections closed for leaving what they were sent unread.
        public var stalled = 0
        /// The client refused most often for its cap since the last `takeCounts`.
        public var busiestRefused: String?
        public var isEmpty: Bool {
            refusedPerAddress + refusedFull + evicted + timedOut + refusedViewers + viewersClosed + stalled == 0
        }
    }

    /// Clients whose refusals are counted one by one between two reports (for `busiestRefused`).
    static let trackedRefusers = 256

    private struct Entry {
        let key: AddressKey
        var awaitingHead: Bool
        var viewer: Bool
        let channel: any Channel
    }

    private struct State {
        var next: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        var bySocket: [ObjectIdentifier: UInt64] = [:]
        var perKey: [AddressKey: Int] = [:]
        var viewersPerKey: [AddressKey: Int] = [:]
        var viewerCount = 0
        var counts = Counts()
        var refusedBy: [AddressKey: Int] = [:]
    }

    private let state = NIOLockedValueBox(State())

    public init(bounds: ConnectionBounds) {
        self.bounds = bounds
    }

    /// Takes a place for `channel`, or returns `nil` when it must be closed unserved. The
    /// place is given back when the channel closes.
    public func admit(_ channel: any Channel) -> UInt64? {
        let key = AddressKey(channel.remoteAddress)
        let (serial, victim): (UInt64?, (any Channel)?) = state.withLockedValue { s in
            if s.perKey[key, default: 0] >= bounds.perAddress {
                s.counts.refusedPerAddress += 1
                if s.refusedBy[key] != nil || s.refusedBy.count < Self.trackedRefusers { s.refusedBy[key, default: 0] += 1 }
                return (nil, nil)
            }
            var victim: (any Channel)?
            if s.entries.count >= bounds.total {
                if let oldest = s.entries.filter({ $0.value.awaitingHead }).keys.min() {
                    victim = s.entries[oldest]?.channel
                    Self.remove(oldest, from: &s)
                    s.counts.evicted += 1
                } else if s.viewerCount == 0 {
                    s.counts.refusedFull += 1
                    return (nil, nil)
                }
            }
            s.next += 1
            s.entries[s.next] = Entry(key: key, awaitingHead: true, viewer: false, channel: channel)
            s.bySocket[ObjectIdentifier(channel)] = s.next
            s.perKey[key, default: 0] += 1
            return (s.next, victim)
        }
        victim?.close(promise: nil)
        if let serial {
            channel.closeFuture.whenComplete { [self] _ in state.withLockedValue { Self.remove(serial, from: &$0) } }
        }
        return serial
    }

    /// The connection sent a whole request head: it no longer makes room for others. Over
    /// `total`, a phone's (a request with a session, or a login) closes the oldest viewer;
    /// any other is refused: `false`, close it unanswered.
    @discardableResult
    public func headArrived(_ serial: UInt64, phone: Bool = false) -> Bool {
        let (keep, victim): (Bool, (any Channel)?) = state.withLockedValue { s in
            guard s.entries[serial] != nil else { return (false, nil) }
            s.entries[serial]?.awaitingHead = false
            guard s.entries.count > bounds.total else { return (true, nil) }
            guard phone else {
                Self.remove(serial, from: &s)
                s.counts.refusedFull += 1
                return (false, nil)
            }
            guard let oldest = s.entries.filter({ $0.value.viewer }).keys.min() else { return (true, nil) }
            let victim = s.entries[oldest]?.channel
            Self.remove(oldest, from: &s)
            s.counts.viewersClosed += 1
            return (true, victim)
        }
        victim?.close(promise: nil)
        return keep
    }

    /// Makes `channel`'s connection a viewer, or returns `false` when its client or everyone
    /// already has as many viewers as the bounds allow.
    public func becomeViewer(_ channel: any Channel) -> Bool {
        state.withLockedValue { s in
            guard let serial = s.bySocket[ObjectIdentifier(channel)], let entry = s.entries[serial] else { return false }
            if entry.viewer { return true }
            guard s.viewersPerKey[entry.key, default: 0] < bounds.viewersPerAddress, s.viewerCount < bounds.viewers else {
                s.counts.refusedViewers += 1
                return false
            }
            s.entries[serial]?.viewer = true
            s.viewersPerKey[entry.key, default: 0] += 1
            s.viewerCount += 1
            return true
        }
    }

    /// The connection was closed for sending no head (or finishing no handshake) in time.
    public func timedOut(_ serial: UInt64) {
        state.withLockedValue { $0.counts.timedOut += 1 }
    }

    /// The connection was closed for leaving what it was sent unread.
    public func stalled(_ serial: UInt64) {
        state.withLockedValue { $0.counts.stalled += 1 }
    }

    /// Open connections, in all and from `key`.
    public func count(from key: AddressKey? = nil) -> Int {
        state.withLockedValue { s in key.map { s.perKey[$0, default: 0] } ?? s.entries.count }
    }

    /// Open viewers, in all.
    public var viewerCount: Int { state.withLockedValue { $0.viewerCount } }

    /// The refusals, evictions and timeouts since the last call, and zero from now on.
    public func takeCounts() -> Counts {
        state.withLockedValue { s in
            var counts = s.counts
            counts.busiestRefused = s.refusedBy.max { $0.value < $1.value }?.key.description
            s.counts = Counts()
            s.refusedBy = [:]
            return counts
        }
    }

    private static func remove(_ serial: UInt64, from s: inout State) {
        guard let entry = s.entries.removeValue(forKey: serial) else { return }
        s.bySocket[ObjectIdentifier(entry.channel)] = nil
        let left = s.perKey[entry.key, default: 1] - 1
        s.perKey[entry.key] = left > 0 ? left : nil
        if entry.viewer {
            s.viewerCount -= 1
            let viewers = s.viewersPerKey[entry.key, default: 1] - 1
            s.viewersPerKey[entry.key] = viewers > 0 ? viewers : nil
        }
    }
}
