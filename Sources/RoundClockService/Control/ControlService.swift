import Logging
import Platform
import ServiceLifecycle

/// The control socket as a `Service`: served on the event loop from the group's start to a
/// graceful shutdown (or cancellation), then it closes every connection and removes the
/// socket file. In the group it stops before the render loop, as the buttons do: no new
/// input while the state is saved.
public struct ControlService: Service, CustomStringConvertible {
    public let server: ControlServer
    public let loop: EventLoop

    public init(server: ControlServer, loop: EventLoop) {
        self.server = server
        self.loop = loop
    }

    public var description: String { "ControlService(\(server.path))" }

    public func run() async throws {
        try server.start(on: loop)
        try? await gracefulShutdown()
        server.stop()
    }
}
