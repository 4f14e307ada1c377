import ConnectionAdmission
import NIOCore
import NIOHTTP1
import NIOTLS

/// Sits right after the HTTP decoder of every connection. Inbound, it closes the
/// connection when the TLS handshake or the first request head does not finish in time
/// (later requests are bounded by Hummingbird's idle timeout, which starts at the first
/// head), or when the first request cannot be parsed; it tells the `ConnectionTable` of each
/// head (a phone's, a login or another) and each answer sent, and closes the connection when
/// the table says so; `firstHead` learns whether a whole head ever arrived. It closes a
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
    private let classify: @Sendable (HTTPRequestHead) -> ConnectionTable.Policy.Head
    private var firstHead: EventLoopPromise<Bool>?
    private var deadline: Scheduled<Void>?
    private var stall: Scheduled<Void>?
    private var waiting: Waiting
    private var upgraded = false
    /// The table refused a head: nothing more is read.
    private var refused = false

    private enum Waiting { case handshake, head, nothing }

    /// One year, as browsers' HSTS preload lists expect.
    static let strictTransportSecurity = "max-age=31536000"

    init(bounds: ConnectionBounds, tls: Bool, table: ConnectionTable, serial: UInt64,
         classify: @escaping @Sendable (HTTPRequestHead) -> ConnectionTable.Policy.Head = { _ in .other },
         firstHead: EventLoopPromise<Bool>? = nil) {
        self.bounds = bounds
        self.tls = tls
        self.table = table
        self.serial = serial
        self.classify = classify
        self.firstHead = firstHead
        waiting = tls ? .handshake : .head
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if deadline == nil { arm(context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        settle(headArrived: false)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        settle(headArrived: false)
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
        if !upgraded, case .head(let head) = unwrapInboundIn(data) {
            if waiting == .head {
                deadline?.cancel()
                deadline = nil
                waiting = .nothing
            }
            guard table.head(serial, classify(head)) else {
                refused = true
                context.close(promise: nil)
                return
            }
            settle(headArrived: true)
        }
        context.fireChannelRead(data)
    }

    /// A first request the decoder cannot parse gets no answer: its connection is closed.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if waiting != .nothing, error is HTTPParserError { context.close(promise: nil) }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !upgraded, case .end = unwrapOutboundIn(data), !table.answered(serial) {
            // Over the table's places a stranger gets its answer, then the connection closes.
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            context.write(data, promise: written)
            return
        }
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

    private func settle(headArrived: Bool) {
        firstHead?.succeed(headArrived)
        firstHead = nil
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
