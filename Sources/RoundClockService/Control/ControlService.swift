import Logging
import ServiceLifecycle

/// The control socket as a `Service`: its thread runs from the group's start to a
/// graceful shutdown (or cancellation), then it closes every connection and removes the
/// socket file. In the group it stops before the render loop, as the buttons do: no new
/// input while the state is saved.
public struct ControlService: Service, CustomStringConvertible {
    public let server: ControlServer

    public init(server: ControlServer) { self.server = server }

    public var description: String { "ControlService(\(server.path))" }

    public func run() async throws {
        let thread = try server.start()
        try? await gracefulShutdown()
        server.stop()
        thread.join()
    }
}
