import NIOConcurrencyHelpers

/// Fans the clock's state lines out to the pages' WebSockets (`/api/live`). Each page gets
/// its own buffer keeping only the newest lines, so a slow or stalled phone loses old
/// states, never delays the others or the socket reader (a slow subscriber never delays a
/// display commit).
public final class LiveHub: Sendable {
    /// Lines kept per page while its WebSocket cannot take them.
    public static let bufferedLines = 16

    private struct Subscriber {
        let continuation: AsyncStream<String>.Continuation
        let session: String?
    }
    private struct Subscribers {
        var next: UInt64 = 0
        var all: [UInt64: Subscriber] = [:]
    }
    private let subscribers = NIOLockedValueBox(Subscribers())
    /// The last line published (a state, or the gateway's own `clock unreachable` line).
    private let last = NIOLockedValueBox(LatestLine())

    public init() {}

    /// A stream of lines that starts with the latest one (with the running program's
    /// definition, `LatestLine`); it ends when the caller's task is cancelled, the
    /// subscription is dropped, or `end(session:)` ends its session.
    public func subscribe(session: String? = nil) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferedLines))
        let id = subscribers.withLockedValue { s in
            s.next += 1
            s.all[s.next] = Subscriber(continuation: continuation, session: session)
            return s.next
        }
        if let line = last.withLockedValue({ $0.first }) { continuation.yield(line) }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLockedValue { $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    public func publish(_ line: String) {
        last.withLockedValue { $0.update(line) }
        let all = subscribers.withLockedValue { $0.all.values.map(\.continuation) }
        for continuation in all { continuation.yield(line) }
    }

    /// Ends the streams of a session that was logged out or dropped: its pages' WebSockets close.
    public func end(session: String) {
        let ended = subscribers.withLockedValue { $0.all.values.filter { $0.session == session }.map(\.continuation) }
        for continuation in ended { continuation.finish() }
    }

    public var subscriberCount: Int { subscribers.withLockedValue { $0.all.count } }
}
