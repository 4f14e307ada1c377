import Logging
import RoundClockCore
import ServiceLifecycle

/// The render loop as a `Service`: runs until its stop condition or a graceful shutdown
/// (SIGTERM/SIGINT/SIGHUP caught by `ShutdownSignals` from the process entry), then hands the final controller to
/// `finished` (save the state, leave the panels showing the configured picture, silence
/// the buzzer).
public struct RenderService<Waiter: LoopWaiter>: Service {
    public typealias Instant = Waiter.WaitClock.Instant
    public let loop: RenderLoop<Waiter>
    public let controller: Controller<Instant>
    public let finished: @Sendable (Controller<Instant>) async -> Void

    public init(loop: RenderLoop<Waiter>, controller: Controller<Instant>,
                finished: @escaping @Sendable (Controller<Instant>) async -> Void) {
        self.loop = loop
        self.controller = controller
        self.finished = finished
    }

    public func run() async throws {
        let loop = self.loop
        let initial = controller
        let final = await cancelWhenGracefulShutdown { await loop.run(initial) }
        await finished(final)
    }
}

/// The watchdog feeder as a `Service`, stopped by a graceful shutdown.
public struct WatchdogService<C: Clock & Sendable>: Service where C.Duration == Duration, C.Instant: Sendable {
    public let feeder: WatchdogFeeder<C>
    public init(feeder: WatchdogFeeder<C>) { self.feeder = feeder }
    public func run() async throws {
        let feeder = self.feeder
        await cancelWhenGracefulShutdown { await feeder.run() }
    }
}

/// ServiceLifecycle names every service `"\(service)"`, eagerly, when the group is
/// configured. Without this, reflection would describe the whole controller: every program
/// of the MODE catalog with all its phases and signals, so start-up would grow with the
/// number of `[programs]`. The name stays the same size whatever the catalog.
extension RenderService: CustomStringConvertible {
    public var description: String { "RenderService(\(controller.catalog.count) programs)" }
}
