import NIOCore
import NIOHTTP1
import NIOTLS

/// Sits right after the HTTP decoder of every connection. Inbound, it closes the
/// connection when the TLS handshake or the first request head does not finish in time
/// (later requests are bounded by Hummingbird's idle timeout, which starts at the first
/// head), and tells the `ConnectionTable` whether the first head is a phone's. It closes a
/// connection whose peer leaves what it is sent unread for `stallTimeout` (the channel stays
/// unwritable), WebSockets included. Outbound, it puts the security headers on every answer,
/// error answers and refused WebSocket upgrades included, HSTS under TLS, and `no-store` on
/// 408 and 413. After the `101` of an upgrade it passes WebSocket data on untouched.
final class HTTPGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let bounds: ConnectionBounds
    private let tls: Bool
    private let table: ConnectionTable
    private let serial: UInt64
    private let isPhone: @Sendable (HTTPRequestHead) -> Bool
    private var deadline: Scheduled<Void>?
    private var stall: Scheduled<Void>?
    private var waiting: Waiting
    private var upgraded = false
    /// The table refused the first head: nothing more is read.
    private var refused = false

    private enum Waiting { case handshake, head, nothing }

    /// One year, as browsers' HSTS preload lists expect.
    static let strictTransportSecurity = "max-age=31536000"

    init(bounds: ConnectionBounds, tls: Bool, table: ConnectionTable, serial: UInt64,
         isPhone: @escaping @Sendable (HTTPRequestHead) -> Bool = { _ in false }) {
        self.bounds = bounds
        self.tls = tls
        self.table = table
        self.serial = serial
        self.isPhone = isPhone
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
        stall?.cancel()
        stall = nil
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stall?.cancel()
            stall = nil
        } else if stall == nil {
            stall = context.eventLoop.assumeIsolated().scheduleTask(in: .init(bounds.stallTimeout)) { [self] in
                stall = nil
                table.stalled(serial)
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
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
        guard !refused else { return }
        if !upgraded, waiting == .head, case .head(let head) = unwrapInboundIn(data) {
            deadline?.cancel()
            deadline = nil
            waiting = .nothing
            guard table.headArrived(serial, phone: isPhone(head)) else {
                refused = true
                context.close(promise: nil)
                return
            }
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
        if tls { head.headers.replaceOrAdd(name: "Strict-Transport-Security", value: Self.strictTransportSecurity) }
        if head.status == .requestTimeout || head.status == .payloadTooLarge {
            head.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        }
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
