import Logging
import Platform
import ServiceLifecycle

extension ShutdownSignals {
    /// Ends when a caught signal arrives (logged), shutting the group down gracefully when
    /// configured with `successTerminationBehavior: .gracefullyShutdownGroup`; ends quietly
    /// at a graceful shutdown that came from elsewhere (`--until`, a failed service).
    public struct Service: ServiceLifecycle.Service {
        public let logger: Logger
        public init(logger: Logger) { self.logger = logger }
        public func run() async throws {
            guard let signal = await cancelWhenGracefulShutdown({ await ShutdownSignals.next() }) else { return }
            logger.info("received \(ShutdownSignals.name(signal)); stopping")
        }
    }
}
