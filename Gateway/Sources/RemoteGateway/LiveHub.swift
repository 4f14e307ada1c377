import NIOConcurrencyHelpers

/// Fans the clock's state lines out to the pages' WebSockets (`/api/live`). Each page gets
/// its own buffer keeping only the newest lines, so a slow or stalled phone loses old
/// states, never delays the others or the socket reader (a slow subscriber never delays a
/// display commit).
public final class LiveHub: Sendable {
    /// Lines kept per page while its WebSocket cannot take them.
    public static let bufferedLines = 16

    private struct Subscribers {
        var next: UInt64 = 0
        var continuations: [UInt64: AsyncStream<String>.Continuation] = [:]
    }
    private let subscribers = NIOLockedValueBox(Subscribers())
    /// The last line published (a state, or the gateway's own `clock unreachable` line).
    private let last = NIOLockedValueBox<String?>(nil)

    public init() {}

    /// A stream of lines that starts with the latest one; it ends when the caller's task
    /// is cancelled or the subscription is dropped.
    public func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferedLines))
        let id = subscribers.withLockedValue { s in
            s.next += 1
            s.continuations[s.next] = continuation
            return s.next
        }
        if let line = last.withLockedValue({ $0 }) { continuation.yield(line) }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLockedValue { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    public func publish(_ line: String) {
        last.withLockedValue { $0 = line }
        let all = subscribers.withLockedValue { Array($0.continuations.values) }
        for continuation in all { continuation.yield(line) }
    }

    public var subscriberCount: Int { subscribers.withLockedValue { $0.continuations.count } }
}
