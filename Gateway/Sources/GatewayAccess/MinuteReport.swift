import Logging
import ServiceLifecycle

/// Logs what the gateway refused or throttled, at most one line per source a minute, so a
/// flood from the network cannot flood the journal. Each source hands over its counts since
/// the last call, or `nil` when there is nothing to say.
package struct MinuteReport: Service {
    let logger: Logger
    let lines: [@Sendable () -> String?]

    package init(logger: Logger, lines: [@Sendable () -> String?]) {
        self.logger = logger
        self.lines = lines
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: .seconds(60)) } catch { break }
                flush()
            }
        }
        flush()
    }

    private func flush() {
        for line in lines { if let text = line() { logger.warning("\(text)") } }
    }
}

extension ConnectionTable {
    /// One line about the last minute's connections closed to make room, refused, timed out,
    /// or ended before a whole request head.
    @Sendable package func report() -> String? {
        let counts = takeCounts()
        guard !counts.isEmpty else { return nil }
        var parts: [String] = []
        if counts.endedBeforeRequest > 0 { parts.append("\(counts.endedBeforeRequest) ended before a whole request") }
        if counts.timedOut > 0 {
            parts.append("\(counts.timedOut) closed without a request head in \(bounds.headTimeout.components.seconds) s")
        }
        if counts.closedForSameClient > 0 {
            parts.append("\(counts.closedForSameClient) closed for a newer one at \(bounds.perAddress) from one address"
                + (counts.busiestClient.map { " (most: \($0))" } ?? ""))
        }
        if counts.closedForRoom > 0 {
            parts.append("\(counts.closedForRoom) closed to make room with all \(bounds.total) places taken")
        }
        if counts.closedOverTotal > 0 { parts.append("\(counts.closedOverTotal) closed over the \(bounds.total) places") }
        if counts.refusedViewers > 0 {
            parts.append("\(counts.refusedViewers) TV pages refused at \(bounds.viewersPerAddress) from one address "
                + "or \(bounds.viewers) in all")
        }
        if counts.viewersClosed > 0 { parts.append("\(counts.viewersClosed) TV pages closed to make room for a phone") }
        if counts.stalled > 0 {
            parts.append("\(counts.stalled) closed for reading nothing in \(bounds.stallTimeout.components.seconds) s")
        }
        return "connections in the last minute: " + parts.joined(separator: "; ")
    }
}
