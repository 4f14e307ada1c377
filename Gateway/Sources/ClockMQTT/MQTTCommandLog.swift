import Logging
import NIOConcurrencyHelpers

/// Logs the `<prefix>/cmd` payloads the gateway ignored or could not deliver without flooding
/// the journal: the first one after a quiet minute is one warning line at once; the rest are
/// counted into `report`'s line, which `MinuteReport` logs at most once a minute.
package final class MQTTCommandLog: Sendable {
    private struct Pending {
        var loggedOne = false
        var more = 0
        var last: String?
    }

    private let topic: String
    private let logger: Logger
    private let pending = NIOLockedValueBox(Pending())

    init(topic: String, logger: Logger) {
        self.topic = topic
        self.logger = logger
    }

    /// One ignored or undelivered payload, and why (one line, no control character).
    func note(_ why: String) {
        let now = pending.withLockedValue { p -> Bool in
            guard p.loggedOne else {
                p.loggedOne = true
                return true
            }
            p.more += 1
            p.last = why
            return false
        }
        if now { logger.warning("MQTT \(topic): \(why)") }
    }

    /// The line about the payloads since the last call, or `nil`; a quiet minute makes the
    /// next payload's line come at once again.
    @Sendable package func report() -> String? {
        pending.withLockedValue { p in
            defer { p = Pending(loggedOne: p.more > 0) }
            guard p.more > 0, let last = p.last else { return nil }
            return "MQTT \(topic): \(p.more) more commands ignored or not delivered in the last minute (last: \(last))"
        }
    }
}
