import MosquittoClient

extension MQTTClient {
    /// A group state machine's view of this connection: `connected` on every connect (after
    /// the client subscribed its topics), `settled` `groupSettleTime` later, once the broker's
    /// retained messages that follow the SUBACK have arrived, and `disconnected` when a
    /// connection the broker accepted ends.
    func reportLinkEvents(connected: @escaping @Sendable () -> Void, settled: @escaping @Sendable () -> Void,
                          disconnected: @escaping @Sendable () -> Void) {
        onConnect {
            connected()
            Task {
                try? await Task.sleep(for: groupSettleTime)
                settled()
            }
        }
        onDisconnect { disconnected() }
    }
}

/// After a connect, how long the broker's retained messages are waited for before a group
/// state machine takes the broker as holding no more (they come right after the SUBACK).
public let groupSettleTime = Duration.milliseconds(1000)
