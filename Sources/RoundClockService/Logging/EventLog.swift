import Logging
import Panels
import RoundClockCore
import Synchronization

/// Turns what the render loop reports into log lines, one per event: actions (start,
/// pause, reset, program change, ...) at info, a panel going offline (error, once per
/// outage: `BoardDisplay` reports transitions only) and online again (notice), a chip
/// found to have lost power and re-initialised (warning), text a panel cannot show
/// (error, once per error); buzzer signals at debug; nothing per frame.
public final class EventLog: DisplayObserver {
    private let logger: Logger
    private let status = Mutex<Status?>(nil)

    public init(logger: Logger) { self.logger = logger }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        self.status.withLock { $0 = status }
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        switch occurrence {
        case .action(let action):
            logger.info("\(Self.line(for: action, status: status.withLock { $0 }))")
        case .signal(let signal, _):
            logger.debug("signal \(signal.rawValue)")
        case .display(let event):
            switch event {
            case .offline, .rejected: logger.error("\(event)")
            case .online: logger.notice("\(event)")
            case .reinitialized: logger.warning("\(event)")
            }
        }
    }

    /// `start: running, round 1 of 12, prep`, `program tabata`, ...
    public static func line(for action: Action, status: Status?) -> String {
        if case .program = action { return action.description }
        guard let status, status.state != .clock else { return action.description }
        var text = "\(action): \(status.state)"
        if status.rounds > 1 { text += ", round \(status.round) of \(status.rounds)" }
        return text + ", \(status.phase)"
    }
}
