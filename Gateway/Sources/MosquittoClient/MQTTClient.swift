import CMosquitto
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import Synchronization

/// An MQTT 3.1.1 client over libmosquitto (the Mosquitto project's own client library),
/// shared by the gateway's components: the clock's topics and Home Assistant discovery
/// (`ClockMQTT`) and the group sync. One connection, clean session, TCP_NODELAY, QoS 1 for
/// everything but the group's time round trips (QoS 0).
///
/// - Network: `start()` returns at once; one thread of the client's own ("mqtt network")
///   does all network I/O: `mosquitto_connect_async` (later `mosquitto_reconnect_async`), then
///   `mosquitto_loop` (1 s select timeout; keepalive PINGREQs) until the connection ends, for
///   whatever reason, then waits its backoff (1, 2, 4, 8, then every 10 s; back to 1 s after a
///   connection the broker accepted) and connects again, until `stop`. Not
///   `mosquitto_loop_start`: libmosquitto 2.0's own thread (`mosquitto_loop_forever`) never
///   retries a first connect that failed, and ends for good after MOSQ_ERR_PROTOCOL,
///   MOSQ_ERR_TLS, MOSQ_ERR_NOMEM and a few more, which left a gateway silently offline until
///   it was restarted. `mosquitto_threaded_set(true)` tells libmosquitto that other threads
///   publish, so it wakes the loop instead of writing from the caller's thread.
///   Nothing here ever blocks a caller on the broker.
/// - `subscribe(_:handler:)`: a component registers its own topic filter (wildcards
///   allowed) and a handler. The client (re)subscribes every registered filter on every
///   connect. Handlers run on libmosquitto's network thread, one message at a time, and
///   must return quickly (hand work to a task or a stream).
/// - `onConnect(_:)`: called on every connect and reconnect, after the filters were
///   subscribed, also on the network thread: the place to republish retained state. When
///   libmosquitto re-sends QoS 1 messages published just before the connection dropped, the
///   handlers run once the broker acknowledged those (at most `drainTimeout` later), so a
///   stale re-sent message never overwrites what a handler republishes.
/// - `onDisconnect(_:)`: called once when a connection the broker accepted ends, for
///   whatever reason (lost, or closed by `stop`), on the network thread: the place to
///   forget what was published on that connection.
/// - `publish(_:)`: QoS 1, retained unless the message says otherwise, never blocks.
///   While disconnected a message is NOT queued (libmosquitto would queue QoS 1 messages
///   without bound): it is dropped, with one log line per disconnected spell and the count
///   on reconnect; each component republishes its current state from `onConnect`. Returns
///   whether the message was handed to libmosquitto.
/// - `stop(final:)`: publishes a last message (e.g. `offline`) and waits for its PUBACK
///   (at most 2 s), sends DISCONNECT (so the broker does not publish the will) and joins
///   the network thread.
public final class MQTTClient: @unchecked Sendable {  // the handle is only used through thread-safe libmosquitto calls; the rest is in `state`
    public typealias MessageHandler = @Sendable (MQTTMessage) -> Void
    public typealias ConnectHandler = @Sendable () -> Void
    public typealias DisconnectHandler = @Sendable () -> Void

    public let connection: MQTTConnection
    let handle: OpaquePointer
    let logger: Logger
    let state = Mutex(State())

    struct State {
        var subscriptions: [(filter: String, handler: MessageHandler)] = []
        var connectHandlers: [ConnectHandler] = []
        var disconnectHandlers: [DisconnectHandler] = []
        var connected = false
        var running = false
        /// Messages dropped while disconnected, reported on reconnect.
        var dropped = 0
        /// The last refusal or loss reason logged, so a retry loop logs each reason once.
        var lastProblem: String?
        /// QoS 1 messages handed to libmosquitto and not acknowledged yet (it re-sends them
        /// after a reconnect), PUBACKs that came before their id was noted, and the waiters
        /// of `publishAcknowledged`.
        var unacked: Set<Int32> = []
        var earlyAcks: Set<Int32> = []
        var ackWaiters: [Int32: CheckedContinuation<Bool, Never>] = [:]
        /// After a connect: the re-sent messages the connect handlers wait for; `nil` = none.
        var draining: Set<Int32>?
        /// Counts connects, so a late drain timeout does not act on a newer connection.
        var generation = 0
        /// The network thread, from `start` until `stop` joined it.
        var network: PosixThread?
        /// When `stop` asked the network thread to end: it goes on until the DISCONNECT
        /// is written, at most `stopGrace` longer.
        var stopRequested: ContinuousClock.Instant?
        /// The network thread queued its DISCONNECT after `stop`.
        var disconnectQueued = false
        /// A `stop` is under way (it may be waiting for its final message's PUBACK).
        var stopping = false
        /// Counts `noteProblem` calls, logged or not: the network thread logs a failed
        /// attempt itself only when no callback did.
        var problemsNoted = 0
        /// libmosquitto's log lines seen since the last accepted connection.
        var libraryLines: Set<String> = []
    }

    /// The reconnect backoff: the first delay, doubled after each failed attempt up to the
    /// largest, in seconds.
    public static let reconnectDelay = 1, reconnectDelayMax = 10
    /// How long a connection attempt may take until the broker's CONNACK.
    static let connectTimeout = Duration.seconds(20)
    /// How long the network thread keeps running after `stop` to send DISCONNECT.
    static let stopGrace = Duration.seconds(2)
    /// `mosquitto_loop`'s select timeout, in ms: how often it checks keepalive and `stop`.
    static let loopTimeout: Int32 = 1000
    /// MQTT's largest payload (section 2.2.3: remaining length at most 268,435,455).
    public static let maximumPayload = 268_435_455
    /// How long the connect handlers wait for re-sent messages' PUBACKs at most.
    public static let drainTimeout = Duration.seconds(5)

    private static let library: Int32 = mosquitto_lib_init()

    /// Creates the client; nothing is connected until `start()`. Throws when libmosquitto
    /// refuses a setting (e.g. an unreadable `caFile`: `mosquitto_tls_set` checks it).
    public init(_ connection: MQTTConnection, logger: Logger) throws(MQTTError) {
        let broker = connection.broker
        try MQTTError.check(Self.library, broker: broker, "mosquitto_lib_init")
        guard let handle = mosquitto_new(connection.clientID, true, nil) else {
            throw MQTTError(broker: broker, operation: "mosquitto_new", code: Int32(MOSQ_ERR_ERRNO.rawValue))
        }
        self.connection = connection
        self.handle = handle
        self.logger = logger
        // From here on `deinit` runs if this throws, and destroys the handle.
        try MQTTError.check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311), broker: broker, "protocol version")
        // Each message goes out at once: Nagle's algorithm would hold a small one back for a
        // round trip while an earlier one is unacknowledged.
        try MQTTError.check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), broker: broker, "TCP_NODELAY")
        if let will = connection.will {
            let code = will.payload.withUnsafeBytes { mosquitto_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, 1, will.retain) }
            try MQTTError.check(code, broker: broker, "last will on \(will.topic)")
        }
        if let user = connection.username {
            try MQTTError.check(mosquitto_username_pw_set(handle, user, connection.password), broker: broker, "username")
        }
        if let ca = connection.caFile {
            try MQTTError.check(mosquitto_tls_set(handle, ca, nil, nil, nil, nil), broker: broker, "TLS with ca_file \(ca)")
        }
        try MQTTError.check(mosquitto_threaded_set(handle, true), broker: broker, "threaded mode")
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        installCallbacks()
    }

    deinit {
        mosquitto_destroy(handle)
    }

    public var isConnected: Bool { state.withLock { $0.connected } }

    /// Registers `handler` for messages on topics matching `filter` (MQTT 3.1.1 section 4.7;
    /// `+` and `#` allowed). Subscribed at once when connected, and on every reconnect.
    public func subscribe(_ filter: String, handler: @escaping MessageHandler) throws(MQTTError) {
        guard mosquitto_sub_topic_check(filter) == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            throw MQTTError(broker: connection.broker, operation: "subscribe", reason: "\(filter.debugDescription) is not a topic filter")
        }
        let connected = state.withLock { s in
            s.subscriptions.append((filter, handler))
            return s.connected
        }
        if connected { sendSubscribe(filter) }
    }

    /// Registers `handler`, called on every connect and reconnect (and at once if connected now).
    public func onConnect(_ handler: @escaping ConnectHandler) {
        let connected = state.withLock { s in
            s.connectHandlers.append(handler)
            return s.connected
        }
        if connected { handler() }
    }

    /// Registers `handler`, called once when a connection the broker accepted ends (see the
    /// type's doc comment).
    public func onDisconnect(_ handler: @escaping DisconnectHandler) {
        state.withLock { $0.disconnectHandlers.append(handler) }
    }

    /// Hands `message` to libmosquitto (QoS 1), or drops it while disconnected (see the type's
    /// doc comment). Never blocks on the network.
    @discardableResult
    public func publish(_ message: MQTTMessage) -> Bool {
        publishedID(message) != nil
    }

    /// `publish`, returning libmosquitto's message id.
    func publishedID(_ message: MQTTMessage) -> Int32? {
        guard message.payload.count <= Self.maximumPayload, mosquitto_pub_topic_check(message.topic) == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            logger.error("MQTT broker \(connection.broker): not published: \(message.topic.debugDescription) is not a topic or the payload is over 256 MB")
            return nil
        }
        let firstDrop = state.withLock { s -> Bool? in
            if s.connected { return nil }
            s.dropped += 1
            return s.dropped == 1
        }
        if let firstDrop {
            if firstDrop { logger.notice("MQTT broker \(connection.broker) not connected: dropping messages until it is back (first: \(message.topic))") }
            return nil
        }
        var id: Int32 = 0
        let code = message.payload.withUnsafeBytes {
            mosquitto_publish(handle, &id, message.topic, Int32($0.count), $0.baseAddress, message.atMostOnce ? 0 : 1, message.retain)
        }
        guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            logger.warning("\(MQTTError(broker: connection.broker, operation: "publish \(message.topic)", code: code))")
            return nil
        }
        guard !message.atMostOnce else { return id }
        state.withLock { s in
            if s.earlyAcks.remove(id) == nil { s.unacked.insert(id) }
        }
        return id
    }

    /// Connects in the background (the network thread; see the type's doc comment).
    public func start() throws(MQTTError) {
        guard state.withLock({ s in
            defer { s.running = true }
            return !s.running
        }) else { return }
        // Kept alive while the network thread may call back into it; released by `stop`.
        _ = Unmanaged.passRetained(self)
        do {
            let network = try PosixThread.start(named: "mqtt network") { [self] in networkLoop() }
            state.withLock { $0.network = network }
        } catch {
            state.withLock { $0.running = false }
            Unmanaged.passUnretained(self).release()
            throw MQTTError(broker: connection.broker, operation: "start", reason: error.description)
        }
    }

    /// Connects, runs `mosquitto_loop` while the connection lasts, waits the backoff, and
    /// again, until `stop` (see the type's doc comment).
    private func networkLoop() {
        var delay = Self.reconnectDelay
        var everConnected = false
        while state.withLock({ $0.running }) {
            let (generation, problems) = state.withLock { ($0.generation, $0.problemsNoted) }
            let started = ContinuousClock.now
            // Resolves the host (getaddrinfo, blocking), opens the socket, queues CONNECT.
            let code = everConnected
                ? mosquitto_reconnect_async(handle)
                : mosquitto_connect_async(handle, connection.host, Int32(connection.port), Int32(connection.keepalive))
            guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
                noteProblem("\(MQTTError(broker: connection.broker, operation: "connect", code: code)); retrying with backoff")
                backOff(&delay)
                continue
            }
            everConnected = true
            var ending = LoopEnding.error
            var result: Int32
            repeat {
                result = mosquitto_loop(handle, Self.loopTimeout, 1)
                guard result == Int32(MOSQ_ERR_SUCCESS.rawValue) else { break }
                ending = keepLooping(since: started, generation: generation)
                guard ending == .goOn else { break }
            } while true
            let error = MQTTError(broker: connection.broker, operation: "connect", code: result)  // reads errno first
            let (running, accepted, noted, wasConnected, lostHandlers) = state.withLock { s in
                defer {
                    s.connected = false
                    s.draining = nil
                }
                return (s.running, s.generation != generation, s.problemsNoted != problems, s.connected,
                        s.connected ? s.disconnectHandlers : [])
            }
            // libmosquitto ended the connection without its disconnect callback.
            for handler in lostHandlers { handler() }
            if !running { break }
            if accepted { delay = Self.reconnectDelay }
            // The callbacks logged a refusal, or the loss of a connection the broker had
            // accepted; anything else (refused port, TLS handshake, no CONNACK) is logged here.
            if ending == .noConnack {
                noteProblem("MQTT broker \(connection.broker): no CONNACK within \(Self.connectTimeout) of connecting; retrying with backoff")
            } else if (!accepted && !noted) || wasConnected {
                noteProblem("\(error); retrying with backoff")
            }
            backOff(&delay)
        }
        closeSocket()
    }

    /// Why the network loop stops calling `mosquitto_loop` while it still succeeds.
    enum LoopEnding { case goOn, error, noConnack, stopped }

    /// After `stop`: DISCONNECT queued (once, here, so that it follows a CONNECT that
    /// `stop`'s own call may have raced), then `mosquitto_loop` goes on until it is written,
    /// at most `stopGrace`. Before: a connection the broker has not accepted within
    /// `connectTimeout` is given up (a TLS handshake stuck on a reset peer makes
    /// libmosquitto 2.0.11 spin on a ready socket until keepalive; fixed upstream in 2.0.18).
    private func keepLooping(since started: ContinuousClock.Instant, generation: Int) -> LoopEnding {
        let (ending, sendDisconnect) = state.withLock { s -> (LoopEnding, Bool) in
            if let requested = s.stopRequested {
                defer { s.disconnectQueued = true }
                return (ContinuousClock.now < requested + Self.stopGrace ? .goOn : .stopped, !s.disconnectQueued)
            }
            if s.generation == generation && ContinuousClock.now > started + Self.connectTimeout { return (.noConnack, false) }
            return (.goOn, false)
        }
        if sendDisconnect { mosquitto_disconnect(handle) }
        return ending
    }

    /// Sleeps `delay` seconds in 100 ms steps (so `stop` never waits long), then doubles it.
    private func backOff(_ delay: inout Int) {
        for _ in 0..<(delay * 10) where state.withLock({ $0.running }) { usleep(100_000) }
        delay = min(delay * 2, Self.reconnectDelayMax)
    }

    /// A socket still open when the network thread ends (`stop`'s grace ran out before the
    /// DISCONNECT was written, or `stop` came between connecting and the loop): shut down
    /// (shutdown(2)), so that one more `mosquitto_loop` reads its end and closes it. Every
    /// way here passed the loop's end, which cleared `connected`: `disconnected` logs nothing.
    private func closeSocket() {
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return }
        _ = shutdown(socket, Int32(SHUT_RDWR))
        _ = mosquitto_loop(handle, 0, 1)
    }

    /// Publishes `final` (if connected) and waits for its PUBACK at most `timeout`, then
    /// disconnects cleanly (DISCONNECT, so the broker does not publish the will) and joins the
    /// network thread. A second `stop` while one is under way returns at once.
    public func stop(final: MQTTMessage? = nil, timeout: Duration = .seconds(2)) async {
        guard state.withLock({ s in
            defer { s.stopping = true }
            return s.running && !s.stopping
        }) else { return }
        if let final, isConnected { _ = await publishAcknowledged(final, timeout: timeout) }
        let network = state.withLock { s in
            s.running = false
            s.stopRequested = .now
            defer { s.network = nil }
            return s.network
        }
        // Wakes the network thread's select at once; it queues its own DISCONNECT too.
        mosquitto_disconnect(handle)
        network?.join()
        state.withLock { s in
            s.connected = false
            s.stopRequested = nil
            s.disconnectQueued = false
            s.stopping = false
        }
        Unmanaged.passUnretained(self).release()
    }

    /// Publishes and waits for the broker's PUBACK, at most `timeout`; whether it came.
    public func publishAcknowledged(_ message: MQTTMessage, timeout: Duration) async -> Bool {
        guard let id = publishedID(message) else { return false }
        return await withCheckedContinuation { continuation in
            let early = state.withLock { s in
                if !s.unacked.contains(id) { return true }
                s.ackWaiters[id] = continuation
                return false
            }
            if early {
                continuation.resume(returning: true)
                return
            }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.ackTimedOut(id)
            }
        }
    }
}
