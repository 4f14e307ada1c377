import GatewayAccess
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// Each request's context: the client's address (the PIN rate limit's key) and the
/// WebSocket upgrade hook of `/api/live`.
public struct GatewayContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    public let remoteAddress: SocketAddress?
    /// The connection (`ConnectionTable` finds its place by it).
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// The client as the limits count it: its IP address without the port.
    public var client: String { AddressKey(remoteAddress).description }
}
