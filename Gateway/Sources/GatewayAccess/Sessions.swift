/// Logged-in phones: random session tokens (256 bits from the system's CSPRNG, getrandom(2)
/// via `SystemRandomNumberGenerator`), kept in memory only, so a gateway restart logs every
/// phone out. A session lasts `lifetime` from its login; at most `capacity` live at once
/// (the oldest is dropped), so logins cannot grow memory without bound.
public struct SessionStore: Sendable {
    public static let lifetime = Duration.seconds(12 * 3600)
    public static let capacity = 64
    /// The cookie's name.
    public static let cookieName = "rc_session"

    private var expiries: [String: ContinuousClock.Instant] = [:]
    private var order: [String] = []
    /// The live session the last `open` dropped to stay within `capacity`, if any.
    public private(set) var lastDropped: String?

    public init() {}

    /// A new session's token (64 lowercase hex digits).
    public mutating func open(now: ContinuousClock.Instant) -> String {
        var random = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in hex64(random.next()) }.joined()
        prune(now: now)
        lastDropped = nil
        if order.count >= Self.capacity, let oldest = order.first {
            order.removeFirst()
            expiries[oldest] = nil
            lastDropped = oldest
        }
        expiries[token] = now + Self.lifetime
        order.append(token)
        return token
    }

    public func isValid(_ token: String?, now: ContinuousClock.Instant) -> Bool {
        guard let token, let expiry = expiries[token] else { return false }
        return now < expiry
    }

    public func expiry(of token: String) -> ContinuousClock.Instant? { expiries[token] }

    public mutating func close(_ token: String) {
        expiries[token] = nil
        order.removeAll { $0 == token }
    }

    public var count: Int { expiries.count }

    private mutating func prune(now: ContinuousClock.Instant) {
        order.removeAll { token in
            guard let expiry = expiries[token], now < expiry else {
                expiries[token] = nil
                return true
            }
            return false
        }
    }
}

/// 16 lowercase hex digits, zero-padded.
func hex64(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
}
