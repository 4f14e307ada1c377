import JSON

/// The one message a TV page may send: `{"ping": N}`, N a whole number from 0 to 999999999
/// naming the round trip. The gateway answers `{"pong": N, "server_us": T}`, T its
/// CLOCK_REALTIME in microseconds (exact in a JavaScript number), and the page estimates its
/// clock's offset as NTP does. Anything else, or pings faster than the budget, closes the
/// socket with a one-line reason: a viewer needs no PIN, so what it sends is bounded.
public struct DisplayPing: Sendable {
    /// Largest message, in bytes.
    public static let maximumBytes = 64
    /// Pings allowed in a burst (a measurement is 8; a reconnect measures again), and the
    /// steady rate after it: one every `refill`.
    public static let burst = 24
    public static let refill = Duration.seconds(2)

    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case tooLong(bytes: Int)
        case notAPing
        case tooFast
        public var description: String {
            switch self {
            case .tooLong(let bytes): "message of \(bytes) bytes; at most \(DisplayPing.maximumBytes)"
            case .notAPing: "expected {\"ping\": N}, N a whole number from 0 to 999999999"
            case .tooFast: "more than \(DisplayPing.burst) pings in a burst or one every \(DisplayPing.refill.components.seconds) s"
            }
        }
    }

    private var tokens = Double(DisplayPing.burst)
    private var last: ContinuousClock.Instant?

    public init() {}

    /// The answer to `text` received at `now` (the page's clock for the limit), with the
    /// gateway's realtime read by `realtimeMicroseconds` as late as possible.
    public mutating func answer(_ text: String, now: ContinuousClock.Instant,
                                realtimeMicroseconds: () -> Int64) throws(Refusal) -> String {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumBytes else { throw .tooLong(bytes: bytes.count) }
        if let last {
            let seconds = Double((now - last).components.seconds) + Double((now - last).components.attoseconds) / 1e18
            tokens = min(Double(Self.burst), tokens + seconds / Double(Self.refill.components.seconds))
        }
        last = now
        guard tokens >= 1 else { throw .tooFast }
        tokens -= 1
        guard let value = try? JSONParser(maxBytes: Self.maximumBytes, maxDepth: 1).parse(bytes),
              let members = value.members, members.count == 1, members[0].key == "ping",
              let id = members[0].value.int, (0...999_999_999).contains(id) else { throw .notAPing }
        return JSONValue.object([JSONMember("pong", .int(id)), JSONMember("server_us", .int(realtimeMicroseconds()))]).encoded
    }
}
