import Logging
import Platform
import ServiceLifecycle

extension ShutdownSignals {
    /// Ends when a caught signal arrives (logged), shutting the group down gracefully when
    /// configured with `successTerminationBehavior: .gracefullyShutdownGroup`; ends quietly
    /// at a graceful shutdown that came from elsewhere (`--until`, a failed service).
    public struct Service: ServiceLifecycle.Service {
        public let logger: Logger
        /// Where the signalfd is read.
        public let loop: EventLoop
        public init(logger: Logger, loop: EventLoop) {
            self.logger = logger
            self.loop = loop
        }
        public func run() async throws {
            guard let signal = await cancelWhenGracefulShutdown({ await ShutdownSignals.next(on: loop) }) else { return }
            logger.info("received \(ShutdownSignals.name(signal)); stopping")
        }
    }
}
