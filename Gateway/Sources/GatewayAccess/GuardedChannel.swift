import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// A server child channel with the gateway's connection bounds around Hummingbird's own:
/// each accepted connection takes a place in the `ConnectionTable` (or is closed unserved),
/// and gets an `HTTPGuard` right after the HTTP decoder (`classify` tells it what a head is).
/// Hummingbird handles a connection only once a whole request head has arrived on it: one
/// that ends before is counted by the table and summed up in the minute's report, where
/// Hummingbird would log each as an error of its upgrade handler.
package struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    package struct Value: ServerChildChannelValue {
        let base: Base.Value
        /// Whether a whole request head arrived before the connection ended.
        let firstHead: EventLoopFuture<Bool>
        package var channel: any Channel { base.channel }
    }

    let base: Base
    let table: ConnectionTable
    let tls: Bool
    let classify: @Sendable (HTTPRequestHead) -> ConnectionTable.Policy.Head

    package init(base: Base, table: ConnectionTable, tls: Bool, classify: @escaping @Sendable (HTTPRequestHead) -> ConnectionTable.Policy.Head) {
        self.base = base
        self.table = table
        self.tls = tls
        self.classify = classify
    }

    struct Refused: Error {}

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let serial = table.admit(channel) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(Refused())
        }
        let bounds = table.bounds
        let tls = tls
        let classify = classify
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let firstHead = channel.eventLoop.makePromise(of: Bool.self)
            do {
                let pipeline = channel.pipeline.syncOperations
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                try pipeline.addHandler(HTTPGuard(bounds: bounds, tls: tls, table: table, serial: serial, classify: classify,
                                                  firstHead: firstHead), position: .after(decoder))
            } catch {
                firstHead.fail(error)
                throw error
            }
            return Value(base: value, firstHead: firstHead.futureResult)
        }
    }

    package func handle(value: Value, logger: Logger) async {
        guard (try? await value.firstHead.get()) == true else { return }
        await base.handle(value: value.base, logger: logger)
    }
}
