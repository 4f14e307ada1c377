import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// A server child channel with the gateway's connection bounds around Hummingbird's own:
/// each accepted connection takes a place in the `ConnectionTable` (or is closed unserved),
/// and gets an `HTTPGuard` right after the HTTP decoder (`isPhone` tells it a phone's head).
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let table: ConnectionTable
    let tls: Bool
    let isPhone: @Sendable (HTTPRequestHead) -> Bool

    struct Refused: Error {}

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let serial = table.admit(channel) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(Refused())
        }
        let bounds = table.bounds
        let tls = tls
        let isPhone = isPhone
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(HTTPGuard(bounds: bounds, tls: tls, table: table, serial: serial, isPhone: isPhone), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
