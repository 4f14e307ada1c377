import HummingbirdWebSocket

/// What the pages' WebSockets (`/api/live`, `/api/display`) share: the lines of a hub sent as
/// they come, while `read` takes what the page sends. The socket closes when the lines end (a
/// logout), when the session's `expiry` passes, or when `read` returns.
enum PageSocket {
    static func serve(_ lines: AsyncStream<String>, outbound: WebSocketOutboundWriter, expiry: ContinuousClock.Instant?,
                      read: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await read() }
            group.addTask {
                for await line in lines { try await outbound.write(.text(line)) }
                try? await outbound.close(.normalClosure, reason: "logged out")
            }
            if let expiry {
                group.addTask {
                    try await Task.sleep(until: expiry)
                    try? await outbound.close(.normalClosure, reason: "session ended")
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }
}
