/// How many connections the gateway keeps, and how long one may take to start talking
/// (docs/remote.md, limits).
public struct ConnectionBounds: Sendable, Hashable {
    /// Waiting and strangers' connections (`AdmissionPolicy`) from one client: an IPv4 address,
    /// or an IPv6 /64.
    public var perAddress: Int
    /// Connections from everyone. The unit's `LimitNOFILE=` leaves room for these and more.
    public var total: Int
    /// TV pages without a session (viewers) from one client, and from everyone; they count in
    /// `total` too.
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
