import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// Each request's context: the client's address (the PIN rate limit's key) and the
/// WebSocket upgrade hook of `/api/live`.
public struct GatewayContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
    }

    /// The client as the limits count it: its IPv4 address or its IPv6 /64, without the port.
    public var client: String { AddressKey(remoteAddress).description }
}
