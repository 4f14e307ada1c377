import Logging
import ServiceLifecycle

/// Logs what the gateway refused or throttled, at most one line per source a minute, so a
/// flood from the network cannot flood the journal. Each source hands over its counts since
/// the last call, or `nil` when there is nothing to say.
struct MinuteReport: Service {
    let logger: Logger
    let lines: [@Sendable () -> String?]

    func run() async throws {
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
    /// One line about the last minute's refused, evicted and timed-out connections.
    @Sendable func report() -> String? {
        let counts = takeCounts()
        guard !counts.isEmpty else { return nil }
        var parts: [String] = []
        if counts.refusedPerAddress > 0 {
            parts.append("\(counts.refusedPerAddress) refused at \(bounds.perAddress) from one address"
                + (counts.busiestRefused.map { " (most: \($0))" } ?? ""))
        }
        if counts.refusedFull > 0 { parts.append("\(counts.refusedFull) refused with all \(bounds.total) places taken") }
        if counts.evicted > 0 { parts.append("\(counts.evicted) closed to make room (no request yet)") }
        if counts.timedOut > 0 {
            parts.append("\(counts.timedOut) closed without a request head in \(bounds.headTimeout.components.seconds) s")
        }
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
