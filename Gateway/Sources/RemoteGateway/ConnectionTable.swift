import NIOConcurrencyHelpers
import NIOCore

/// How many connections the gateway keeps, and how long one may take to start talking
/// (docs/remote.md, limits).
public struct ConnectionBounds: Sendable, Hashable {
    /// Connections from one client (`AddressKey`: an IPv4 address or an IPv6 /64).
    public var perAddress: Int
    /// Connections from everyone. The unit's `LimitNOFILE=` leaves room for these and more.
    public var total: Int
    /// From accept to a finished TLS handshake.
    public var handshakeTimeout: Duration
    /// From accept (under TLS: from the finished handshake) to the first request's whole head.
    public var headTimeout: Duration

    public static let standard = ConnectionBounds(perAddress: 16, total: 256, handshakeTimeout: .seconds(10), headTimeout: .seconds(10))

    public init(perAddress: Int, total: Int, handshakeTimeout: Duration, headTimeout: Duration) {
        self.perAddress = perAddress
        self.total = total
        self.handshakeTimeout = handshakeTimeout
        self.headTimeout = headTimeout
    }
}

/// The open connections, counted per client and in all. A connection over its client's
/// cap is refused. When all places are taken, the oldest connection that has not sent a
/// whole request head yet makes room (a phone sends its head at once; one that sends none
/// is the kind a flood holds open); when every place holds a connection past its head, the
/// new one is refused.
public final class ConnectionTable: Sendable {
    public let bounds: ConnectionBounds

    public struct Counts: Sendable, Hashable {
        public var refusedPerAddress = 0
        public var refusedFull = 0
        public var evicted = 0
        public var timedOut = 0
        /// The client refused most often for its cap since the last `takeCounts`.
        public var busiestRefused: String?
        public var isEmpty: Bool { refusedPerAddress + refusedFull + evicted + timedOut == 0 }
    }

    private struct Entry {
        let key: AddressKey
        var awaitingHead: Bool
        let channel: any Channel
    }

    private struct State {
        var next: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        var perKey: [AddressKey: Int] = [:]
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
                s.refusedBy[key, default: 0] += 1
                return (nil, nil)
            }
            var victim: (any Channel)?
            if s.entries.count >= bounds.total {
                guard let oldest = s.entries.filter({ $0.value.awaitingHead }).keys.min() else {
                    s.counts.refusedFull += 1
                    return (nil, nil)
                }
                victim = s.entries[oldest]?.channel
                Self.remove(oldest, from: &s)
                s.counts.evicted += 1
            }
            s.next += 1
            s.entries[s.next] = Entry(key: key, awaitingHead: true, channel: channel)
            s.perKey[key, default: 0] += 1
            return (s.next, victim)
        }
        victim?.close(promise: nil)
        if let serial {
            channel.closeFuture.whenComplete { [self] _ in state.withLockedValue { Self.remove(serial, from: &$0) } }
        }
        return serial
    }

    /// The connection sent a whole request head: it no longer makes room for others.
    public func headArrived(_ serial: UInt64) {
        state.withLockedValue { $0.entries[serial]?.awaitingHead = false }
    }

    /// The connection was closed for sending no head (or finishing no handshake) in time.
    public func timedOut(_ serial: UInt64) {
        state.withLockedValue { $0.counts.timedOut += 1 }
    }

    /// Open connections, in all and from `key`.
    public func count(from key: AddressKey? = nil) -> Int {
        state.withLockedValue { s in key.map { s.perKey[$0, default: 0] } ?? s.entries.count }
    }

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
        let left = s.perKey[entry.key, default: 1] - 1
        s.perKey[entry.key] = left > 0 ? left : nil
    }
}
