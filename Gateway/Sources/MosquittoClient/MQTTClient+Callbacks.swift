import CMosquitto
import Logging

/// libmosquitto's callbacks (`mosquitto_*_callback_set`), run on its network thread. Each
/// C function pointer finds the client through the handle's user data (`mosquitto_user_data_set`).
extension MQTTClient {
    static func client(_ userdata: UnsafeMutableRawPointer?) -> MQTTClient? {
        userdata.map { Unmanaged<MQTTClient>.fromOpaque($0).takeUnretainedValue() }
    }

    func installCallbacks() {
        mosquitto_connect_callback_set(handle) { _, userdata, code in MQTTClient.client(userdata)?.connected(code) }
        mosquitto_disconnect_callback_set(handle) { _, userdata, code in MQTTClient.client(userdata)?.disconnected(code) }
        mosquitto_publish_callback_set(handle) { _, userdata, id in MQTTClient.client(userdata)?.acknowledged(id, arrived: true) }
        mosquitto_message_callback_set(handle) { _, userdata, message in
            guard let message, let topic = message.pointee.topic else { return }
            let count = Int(max(0, message.pointee.payloadlen))
            let payload = message.pointee.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
            MQTTClient.client(userdata)?.received(MQTTMessage(topic: String(cString: topic), payload: payload, retain: message.pointee.retain))
        }
        // libmosquitto's own error and warning lines (TLS handshakes, protocol errors).
        mosquitto_log_callback_set(handle) { _, userdata, level, text in
            guard let client = MQTTClient.client(userdata), let text, level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 else { return }
            client.logger.warning("MQTT broker \(client.connection.broker): libmosquitto: \(String(cString: text))")
        }
    }

    /// CONNACK: 0 = accepted, else the broker's refusal (MQTT 3.1.1 section 3.2.2.3).
    func connected(_ code: Int32) {
        guard code == 0 else {
            let reason = mosquitto_connack_string(code).map { String(cString: $0) } ?? "code \(code)"
            noteProblem("MQTT broker \(connection.broker) refused the connection: \(reason); retrying with backoff")
            return
        }
        let (filters, handlers, dropped) = state.withLock { s in
            s.connected = true
            s.lastProblem = nil
            defer { s.dropped = 0 }
            return (s.subscriptions.map(\.filter), s.connectHandlers, s.dropped)
        }
        let tls = connection.caFile == nil ? "" : " over TLS"
        logger.notice("connected to MQTT broker \(connection.broker)\(tls) as \(connection.clientID)")
        if dropped > 0 { logger.notice("MQTT broker \(connection.broker): \(dropped) messages were dropped while disconnected; republishing the current state") }
        for filter in Set(filters).sorted() { sendSubscribe(filter) }
        for handler in handlers { handler() }
    }

    func disconnected(_ code: Int32) {
        let wasConnected = state.withLock { s in
            defer { s.connected = false }
            return s.connected
        }
        guard code != 0, wasConnected else { return }  // 0: our own DISCONNECT
        noteProblem("lost MQTT broker \(connection.broker): \(MQTTError.text(code)); reconnecting with backoff")
    }

    func received(_ message: MQTTMessage) {
        let handlers = state.withLock { s in s.subscriptions }.filter { subscription in
            var matches = false
            return mosquitto_topic_matches_sub(subscription.filter, message.topic, &matches) == Int32(MOSQ_ERR_SUCCESS.rawValue) && matches
        }
        for subscription in handlers { subscription.handler(message) }
    }

    func acknowledged(_ id: Int32, arrived: Bool) {
        let waiter = state.withLock { s in
            let waiter = s.ackWaiters.removeValue(forKey: id)
            if waiter == nil, arrived {
                if s.earlyAcks.count > 256 { s.earlyAcks.removeAll() }
                s.earlyAcks.insert(id)
            }
            return waiter
        }
        waiter?.resume(returning: arrived)
    }

    func sendSubscribe(_ filter: String) {
        let code = mosquitto_subscribe(handle, nil, filter, 1)
        if code != Int32(MOSQ_ERR_SUCCESS.rawValue) {
            logger.warning("\(MQTTError(broker: connection.broker, operation: "subscribe \(filter)", code: code))")
        }
    }

    /// Logs `problem` unless it is the one logged last (a retry loop logs each reason once).
    func noteProblem(_ problem: String) {
        let isNew = state.withLock { s in
            defer { s.lastProblem = problem }
            return s.lastProblem != problem
        }
        if isNew { logger.warning("\(problem)") }
    }

    /// libmosquitto's network thread ends by itself after errors it deems fatal (TLS,
    /// protocol, DNS failures in `mosquitto_loop_forever`), with no callback. While
    /// disconnected, this restarts it: `mosquitto_loop_start` succeeds only when no thread
    /// runs. Checked every 5 s, backing off to 60 s while the thread keeps dying.
    func superviseNetworkThread() async {
        var delay = Duration.seconds(5)
        while !Task.isCancelled {
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled, !isConnected else {
                delay = .seconds(5)
                continue
            }
            if mosquitto_loop_start(handle) == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                logger.warning("MQTT broker \(connection.broker): libmosquitto's network thread had stopped (see the error above); started it again")
                delay = min(delay * 2, .seconds(60))
            }
        }
    }
}
