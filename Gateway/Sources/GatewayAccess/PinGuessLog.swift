import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Logs PIN guessing without flooding the journal: a key's first wrong PIN in a row is one
/// warning line; later wrong PINs and refused logins go into `PinGuessSummary`'s line a minute.
public final class PinGuessLog: Sendable {
    private let summary = NIOLockedValueBox(PinGuessSummary())
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Logs or counts one attempt the login refused.
    public func note(_ outcome: Access.Login, client: String, now: ContinuousClock.Instant = .now) {
        let attempt: PinGuessSummary.Attempt
        switch outcome {
        case .session: return
        case .wrongPin(let inARow) where inARow == 1:
            logger.warning("wrong PIN from \(client)")
            return
        case .wrongPin: attempt = .wrongPin
        case .limited: attempt = .refused
        }
        if let line = summary.withLockedValue({ $0.count(attempt, client: client, now: now) }) {
            logger.warning("\(line)")
        }
    }

    /// When the pending summary line is due; `nil` when nothing is counted.
    var due: ContinuousClock.Instant? { summary.withLockedValue { $0.due } }

    /// Logs the summary line if it is due (at once with `force`).
    func flush(now: ContinuousClock.Instant = .now, force: Bool = false) {
        if let line = summary.withLockedValue({ $0.line(now: now, force: force) }) {
            logger.warning("\(line)")
        }
    }
}

/// Logs a summary line once it is due even when no further attempt comes, and what is left
/// at graceful shutdown.
package struct PinGuessLogService: Service {
    let log: PinGuessLog
    /// How often it looks while nothing is counted.
    static let idleCheck = Duration.seconds(10)

    package init(log: PinGuessLog) { self.log = log }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let wake = log.due ?? .now + Self.idleCheck
                try? await Task.sleep(until: wake, clock: .continuous)
                log.flush()
            }
        }
        log.flush(force: true)
    }
}
