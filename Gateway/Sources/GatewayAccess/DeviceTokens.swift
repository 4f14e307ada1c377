/// Phones that logged in with the right PIN, by the random token of their `rc_device` cookie
/// (256 bits, 64 lowercase hex digits like a session token). A login carrying a known token
/// is counted under the phone's own key, so strangers' wrong PINs from the same address never
/// hold it back. At most `capacity` are known; the least recently used is dropped.
public struct DeviceTokens: Sendable, Equatable {
    public static let capacity = 64
    public static let cookieName = "rc_device"
    public static let lifetime = Duration.seconds(400 * 24 * 3600)

    /// Least recently used first.
    public private(set) var tokens: [String] = []

    public init() {}

    /// The well-formed tokens of `fileText` (one a line, least recently used first); at most
    /// the `capacity` most recent ones.
    public init(fileText: String) {
        for line in fileText.split(separator: "\n") where Self.isWellFormed(line) {
            use(String(line))
        }
    }

    /// One token a line, least recently used first.
    public var fileText: String { tokens.map { $0 + "\n" }.joined() }

    public func contains(_ token: String?) -> Bool {
        guard let token, Self.isWellFormed(token[...]) else { return false }
        return tokens.contains(token)
    }

    /// Marks `token` as just used, adding it if unknown and dropping the least recently used
    /// beyond `capacity`.
    public mutating func use(_ token: String) {
        tokens.removeAll { $0 == token }
        tokens.append(token)
        if tokens.count > Self.capacity { tokens.removeFirst(tokens.count - Self.capacity) }
    }

    /// A new random token (64 lowercase hex digits).
    public static func make() -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<4).map { _ in hex64(random.next()) }.joined()
    }

    /// The back-off's key of a known phone: `device:` and the token's first 8 hex digits.
    public static func key(_ token: String) -> String { "device:" + token.prefix(8) }

    static func isWellFormed(_ token: Substring) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
