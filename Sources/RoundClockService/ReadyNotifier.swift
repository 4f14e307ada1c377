import Logging
import Panels
import Platform
import RoundClockCore
import Synchronization

/// Sends READY=1 (Type=notify) after the first loop turn whose display attempt completed,
/// with a STATUS= line: the picture when at least one panel answered
/// (`showing 0:10 (ready)`, plus `; display offline: phase` for any that did not), or,
/// when no panel answered, `running; display offline: time, round, phase` and an error
/// in the log. The clock is ready either way: the timing runs and `BoardDisplay` brings
/// the panels back when they answer, instead of systemd killing a start-up that waits for
/// them (TimeoutStartSec=) and restarting it forever. Afterwards STATUS= is sent again
/// whenever the set of offline panels changes (never per frame).
public final class ReadyNotifier: DisplayObserver {
    private let notifier: SystemdNotifier
    private let logger: Logger
    /// The offline panels last reported; nil until READY=1 was sent.
    private let reported = Mutex<[PanelRole]?>(nil)

    public init(notifier: SystemdNotifier, logger: Logger) {
        self.notifier = notifier
        self.logger = logger
    }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {}

    public func displayed(_ face: Face, update: DisplayUpdate, status: Status, at t: Duration) {
        let offline = update.offline
        let previous = reported.withLock { last in defer { last = offline }; return last }
        guard previous != offline else { return }
        let missing = offline.map(\.rawValue).joined(separator: ", ")
        guard previous == nil else {
            send(offline.isEmpty ? "running; all panels online" : "running; display offline: \(missing)")
            return
        }
        var text = "showing \(face.time.text.trimmed) (\(status.state))"
        if update.panels.isEmpty, !offline.isEmpty {
            text = "running; display offline: \(missing)"
            logger.error("no panel answers (\(missing)); running anyway, retrying the display")
        } else if !offline.isEmpty {
            text += "; display offline: \(missing)"
        }
        do { try notifier.ready(status: text) } catch {
            logger.warning("sd_notify READY=1: \(error)")
        }
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {}

    private func send(_ status: String) {
        do { try notifier.status(status) } catch {
            logger.warning("sd_notify STATUS=: \(error)")
        }
    }
}
