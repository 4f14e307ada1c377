import Logging
import Platform

/// Feeds the systemd watchdog (`WatchdogSec=`): every `interval` (half of `$WATCHDOG_USEC`,
/// see `SystemdNotifier.watchdogTimeout`), on absolute deadlines of `clock`, it sends
/// `WATCHDOG=1` — but only while `heartbeat` says the render loop is healthy. A stuck loop
/// therefore stops the pings and systemd restarts the service (`Restart=on-failure`).
/// `run()` has the shape of swift-service-lifecycle's `Service.run()`.
public struct WatchdogFeeder<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable, C: Sendable {
    public let clock: C
    public let interval: Duration
    public let heartbeat: LoopHeartbeat<C.Instant>
    public let notifier: SystemdNotifier
    public let logger: Logger

    public init(clock: C, interval: Duration, heartbeat: LoopHeartbeat<C.Instant>, notifier: SystemdNotifier, logger: Logger) {
        self.clock = clock
        self.interval = max(interval, .milliseconds(1))
        self.heartbeat = heartbeat
        self.notifier = notifier
        self.logger = logger
    }

    /// One check at `now`: sends WATCHDOG=1 when healthy. Returns whether it was sent.
    /// `wasHealthy` is the previous result, to log only the transitions.
    public func feed(at now: C.Instant, wasHealthy: Bool) -> Bool {
        if let problem = heartbeat.problem(at: now) {
            if wasHealthy { logger.warning("watchdog: not feeding: \(problem)") }
            return false
        }
        do {
            try notifier.watchdog()
        } catch {
            logger.error("watchdog: \(error)")
            return false
        }
        if !wasHealthy { logger.notice("watchdog: render loop healthy, feeding") }
        return true
    }

    /// How often `run` looks again while the loop has not begun its first turn.
    static var startUpRecheck: Duration { .milliseconds(50) }

    /// Until the task is cancelled.
    public func run() async {
        let started = clock.now
        var deadline = started
        var healthy = true
        while !Task.isCancelled {
            let now = clock.now
            // Start-up: the loop's first turn is still to come (it starts beside this
            // service, on a thread of its own). Neither a ping nor a warning until it has
            // turned or `grace` has passed; look again soon.
            if !heartbeat.hasStarted, started.duration(to: now) <= heartbeat.grace {
                let soon = now.advanced(by: min(interval, Self.startUpRecheck))
                do { try await clock.sleep(until: soon, tolerance: nil) } catch { return }
                continue
            }
            healthy = feed(at: now, wasHealthy: healthy)
            deadline = deadline.advanced(by: interval)
            let after = clock.now
            if deadline < after {
                // Fell behind (suspend, stall, start-up): skip missed pings rather than burst them.
                deadline = after.advanced(by: interval)
            }
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
        }
    }
}
