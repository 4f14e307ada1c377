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
        mosquitto_publish_callback_set(handle) { _, userdata, id in MQTTClient.client(userdata)?.acknowledged(id) }
        mosquitto_message_callback_set(handle) { _, userdata, message in
            guard let message, let topic = message.pointee.topic else { return }
            let count = Int(max(0, message.pointee.payloadlen))
            let payload = message.pointee.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
            MQTTClient.client(userdata)?.received(MQTTMessage(topic: String(cString: topic), payload: payload, retain: message.pointee.retain))
        }
        // libmosquitto's own error and warning lines (TLS handshakes, protocol errors).
        mosquitto_log_callback_set(handle) { _, userdata, level, text in
            guard let client = MQTTClient.client(userdata), let text, level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 else { return }
            client.libraryLogged(String(cString: text))
        }
    }

    /// Logs a line of libmosquitto's once between two accepted connections: a broker
    /// refusing every retry would otherwise repeat it every 10 s.
    func libraryLogged(_ text: String) {
        var line = text
        while line.last?.isNewline == true { line.removeLast() }  // some end in "\n"
        let isNew = state.withLock { s in
            if s.libraryLines.count >= 64 { s.libraryLines.removeAll() }
            return s.libraryLines.insert(line).inserted
        }
        if isNew { logger.warning("MQTT broker \(connection.broker): libmosquitto: \(line)") }
    }

    /// CONNACK: 0 = accepted, else the broker's refusal (MQTT 3.1.1 section 3.2.2.3).
    func connected(_ code: Int32) {
        guard code == 0 else {
            let reason = mosquitto_connack_string(code).map { String(cString: $0) } ?? "code \(code)"
            noteProblem("MQTT broker \(connection.broker) refused the connection: \(reason); retrying with backoff")
            return
        }
        let (filters, handlers, dropped, generation, running) = state.withLock { s in
            s.connected = true
            s.lastProblem = nil
            s.libraryLines.removeAll()
            s.generation += 1
            s.draining = s.unacked.isEmpty ? nil : s.unacked
            defer { s.dropped = 0 }
            return (s.subscriptions.map(\.filter), s.draining == nil ? s.connectHandlers : nil, s.dropped, s.generation, s.running)
        }
        // Accepted after `stop` began (it raced the connect): the DISCONNECT follows.
        guard running else { return }
        let tls = connection.caFile == nil ? "" : " over TLS"
        logger.notice("connected to MQTT broker \(connection.broker)\(tls) as \(connection.clientID)")
        if dropped > 0 { logger.notice("MQTT broker \(connection.broker): \(dropped) messages were dropped while disconnected; republishing the current state") }
        for filter in Set(filters).sorted() { sendSubscribe(filter) }
        guard let handlers else {
            Task { [weak self] in
                try? await Task.sleep(for: MQTTClient.drainTimeout)
                self?.drainTimedOut(generation: generation)
            }
            return
        }
        for handler in handlers { handler() }
    }

    /// The re-sent messages were not all acknowledged in time: the handlers run anyway.
    func drainTimedOut(generation: Int) {
        let handlers = state.withLock { s -> [ConnectHandler] in
            guard s.generation == generation, s.draining != nil else { return [] }
            s.draining = nil
            return s.connectHandlers
        }
        guard !handlers.isEmpty else { return }
        logger.warning("MQTT broker \(connection.broker): re-sent messages not acknowledged within \(MQTTClient.drainTimeout); republishing anyway")
        for handler in handlers { handler() }
    }

    /// The connection ended; the disconnect handlers run when the broker had accepted it
    /// (whichever of this callback and the network loop's end sees it first clears `connected`).
    func disconnected(_ code: Int32) {
        let (wasConnected, handlers) = state.withLock { s in
            defer {
                s.connected = false
                s.draining = nil
            }
            return (s.connected, s.connected ? s.disconnectHandlers : [])
        }
        for handler in handlers { handler() }
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

    /// PUBACK for `id`: drops it from the unacknowledged; wakes its waiter, and the connect
    /// handlers when it was the last re-sent message they waited for.
    func acknowledged(_ id: Int32) {
        let (waiter, handlers) = state.withLock { s -> (CheckedContinuation<Bool, Never>?, [ConnectHandler]) in
            if s.unacked.remove(id) == nil {
                if s.earlyAcks.count > 256 { s.earlyAcks.removeAll() }
                s.earlyAcks.insert(id)
            }
            var handlers: [ConnectHandler] = []
            if var draining = s.draining, draining.remove(id) != nil {
                s.draining = draining.isEmpty ? nil : draining
                if draining.isEmpty { handlers = s.connectHandlers }
            }
            return (s.ackWaiters.removeValue(forKey: id), handlers)
        }
        waiter?.resume(returning: true)
        for handler in handlers { handler() }
    }

    func ackTimedOut(_ id: Int32) {
        state.withLock { $0.ackWaiters.removeValue(forKey: id) }?.resume(returning: false)
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
            defer {
                s.lastProblem = problem
                s.problemsNoted += 1
            }
            return s.lastProblem != problem
        }
        if isNew { logger.warning("\(problem)") }
    }
}
