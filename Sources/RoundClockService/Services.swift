import Logging
import RoundClockCore
import ServiceLifecycle

/// The render loop as a `Service`: runs until its stop condition or a graceful shutdown
/// (SIGTERM/SIGINT through the service group), then hands the final controller to
/// `finished` (save the state, leave the panels showing the configured picture, silence
/// the buzzer).
public struct RenderService<C: Clock & Sendable>: Service where C.Duration == Duration, C.Instant: Sendable {
    public let loop: RenderLoop<C>
    public let controller: Controller<C.Instant>
    public let finished: @Sendable (Controller<C.Instant>) async -> Void

    public init(loop: RenderLoop<C>, controller: Controller<C.Instant>,
                finished: @escaping @Sendable (Controller<C.Instant>) async -> Void) {
        self.loop = loop
        self.controller = controller
        self.finished = finished
    }

    public func run() async throws {
        let loop = self.loop
        let initial = controller
        let final = try await cancelWhenGracefulShutdown { await loop.run(initial) }
        await finished(final)
    }
}

/// The watchdog feeder as a `Service`, stopped by a graceful shutdown.
public struct WatchdogService<C: Clock & Sendable>: Service where C.Duration == Duration, C.Instant: Sendable {
    public let feeder: WatchdogFeeder<C>
    public init(feeder: WatchdogFeeder<C>) { self.feeder = feeder }
    public func run() async throws {
        let feeder = self.feeder
        try await cancelWhenGracefulShutdown { await feeder.run() }
    }
}

/// Sends READY=1 once the first frame is on the display (Type=notify), with a STATUS line.
public final class ReadyNotifier: LoopObserver {
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let sent = Mutex(false)

    public init(notifier: SystemdNotifier, logger: Logger) {
        self.notifier = notifier
        self.logger = logger
    }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        guard !sent.withLock({ done in defer { done = true }; return done }) else { return }
        do { try notifier.ready(status: "showing \(face.time.text.trimmed) (\(status.state))") } catch {
            logger.warning("sd_notify READY=1: \(error)")
        }
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {}
}

import Synchronization

extension String {
    var trimmed: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
