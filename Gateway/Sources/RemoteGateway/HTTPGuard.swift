import NIOCore
import NIOHTTP1
import NIOTLS

/// Sits right after the HTTP decoder of every connection. Inbound, it closes the
/// connection when the TLS handshake or the first request head does not finish in time
/// (later requests are bounded by Hummingbird's idle timeout, which starts at the first
/// head). Outbound, it puts the security headers on every answer, error answers and refused
/// WebSocket upgrades included. After the `101` of an upgrade it passes WebSocket data on
/// untouched.
final class HTTPGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let bounds: ConnectionBounds
    private let tls: Bool
    private let table: ConnectionTable
    private let serial: UInt64
    private var deadline: Scheduled<Void>?
    private var waiting: Waiting
    private var upgraded = false

    private enum Waiting { case handshake, head, nothing }

    init(bounds: ConnectionBounds, tls: Bool, table: ConnectionTable, serial: UInt64) {
        self.bounds = bounds
        self.tls = tls
        self.table = table
        self.serial = serial
        waiting = tls ? .handshake : .head
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if deadline == nil { arm(context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if waiting == .handshake, let tlsEvent = event as? TLSUserEvent, case .handshakeCompleted = tlsEvent {
            deadline?.cancel()
            deadline = nil
            waiting = .head
            arm(context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !upgraded, waiting == .head, case .head = unwrapInboundIn(data) {
            deadline?.cancel()
            deadline = nil
            waiting = .nothing
            table.headArrived(serial)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !upgraded, case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        if head.status == .switchingProtocols {
            // WebSocket frames follow, which this handler does not speak.
            upgraded = true
            context.write(data, promise: promise)
            return
        }
        for (name, value) in SecurityHeaders.fields { head.headers.replaceOrAdd(name: name, value: value) }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard deadline == nil, waiting != .nothing else { return }
        let limit = waiting == .handshake ? bounds.handshakeTimeout : bounds.headTimeout
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .init(limit)) { [self] in
            deadline = nil
            guard waiting != .nothing else { return }
            table.timedOut(serial)
            context.close(promise: nil)
        }
    }
}
