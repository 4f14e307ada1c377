import Logging
import RoundClockCore
import Synchronization

/// Turns what the render loop reports into log lines, one per event: actions (start,
/// pause, reset, program change, ...) at info, the display going offline (first failure,
/// error) and online again (notice); buzzer signals at debug; nothing per frame.
public final class EventLog: LoopObserver {
    private struct State {
        var status: Status?
        var offlineSince: Duration?
        var failures = 0
    }
    private let logger: Logger
    private let state = Mutex(State())

    public init(logger: Logger) { self.logger = logger }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        let back = state.withLock { s -> (since: Duration, failures: Int)? in
            s.status = status
            guard let since = s.offlineSince else { return nil }
            defer { s.offlineSince = nil; s.failures = 0 }
            return (since, s.failures)
        }
        if let back {
            logger.notice("\(Self.displayOnline(offlineFor: t - back.since, failures: back.failures))")
        }
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        switch occurrence {
        case .action(let action):
            let status = state.withLock { $0.status }
            logger.info("\(Self.line(for: action, status: status))")
        case .signal(let signal):
            logger.debug("signal \(signal.rawValue)")
        case .displayFailed(let message):
            let first = state.withLock { s -> Bool in
                s.failures += 1
                guard s.offlineSince == nil else { return false }
                s.offlineSince = t
                return true
            }
            if first { logger.error("display offline: \(message)") }
        }
    }

    /// `start: running, round 1 of 12, prep`, `program tabata`, ...
    public static func line(for action: Action, status: Status?) -> String {
        if case .program = action { return action.description }
        guard let status, status.state != "clock" else { return action.description }
        var text = "\(action): \(status.state)"
        if status.rounds > 1 { text += ", round \(status.round) of \(status.rounds)" }
        return text + ", \(status.phase)"
    }

    static func displayOnline(offlineFor: Duration, failures: Int) -> String {
        "display online again after \(offlineFor.formattedSeconds(decimals: 1)) s offline (\(failures) failed attempt\(failures == 1 ? "" : "s"))"
    }
}
