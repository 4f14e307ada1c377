import ControlProtocol
import Logging
import MosquittoClient
import Synchronization

/// The clock on MQTT (docs/mqtt-home-assistant.md): the state lines from
/// the clock link go out retained on `<prefix>/state`; `<prefix>/status` is `online` while
/// the gateway is connected and the clock reachable, else `offline` (also the last will);
/// `<prefix>/cmd` takes the control socket's command objects. Discovery configs, status and
/// the latest state are republished on every (re)connect.
public final class ClockMQTT: Sendable {
    public let client: MQTTClient
    public let topics: ClockTopics
    let discovery: [MQTTMessage]
    let link: ClockLink
    let logger: Logger
    /// The latest state line, and whether the clock is reachable.
    private let latest = Mutex<(state: String?, reachable: Bool)>((nil, false))
    private let commands: AsyncStream<[UInt8]>
    private let commandInbox: AsyncStream<[UInt8]>.Continuation

    /// Commands waiting for the clock; more are ignored with a log line (a flood on `cmd`).
    public static let queuedCommands = 16

    public init(client: MQTTClient, topics: ClockTopics, discovery: HomeAssistantDiscovery, link: ClockLink, logger: Logger) throws(MQTTError) {
        self.client = client
        self.topics = topics
        self.discovery = discovery.messages
        self.link = link
        self.logger = logger
        (commands, commandInbox) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(Self.queuedCommands))
        try client.subscribe(topics.command) { [commandInbox, logger, topics] message in
            if case .dropped = commandInbox.yield(message.payload) {
                logger.warning("MQTT \(topics.command): ignored: \(Self.queuedCommands) commands are already waiting for the clock")
            }
        }
        client.onConnect { [weak self] in self?.republish() }
    }

    /// The `[mqtt]` will: `offline`, retained.
    public static func will(_ topics: ClockTopics) -> MQTTMessage { MQTTMessage(topic: topics.status, text: ClockTopics.offline) }

    /// Publishes the clock's lines and runs the commands until cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await line in link.hub.subscribe() { clockSaid(line) }
            }
            group.addTask { [self] in
                for await payload in commands { await execute(payload) }
            }
        }
    }

    /// Publishes `offline` (waiting for the broker's PUBACK) and disconnects.
    public func stop() async {
        commandInbox.finish()
        await client.stop(final: Self.will(topics))
    }

    /// Publishes under the `latest` lock, so a reconnect's republish and a new line never
    /// cross (a stale state cannot overwrite a newer retained one).
    func clockSaid(_ line: String) {
        let isState = ControlState.parse(line) != nil
        latest.withLock { latest in
            if latest.reachable != isState { client.publish(status(reachable: isState)) }
            latest.reachable = isState
            guard isState else { return }
            latest.state = line
            client.publish(MQTTMessage(topic: topics.state, text: line))
        }
    }

    /// Discovery, status, state: on every (re)connect (the broker may have lost its
    /// retained messages, and messages are dropped while disconnected).
    func republish() {
        for message in discovery { client.publish(message) }
        latest.withLock { latest in
            client.publish(status(reachable: latest.reachable))
            if let state = latest.state { client.publish(MQTTMessage(topic: topics.state, text: state)) }
        }
    }

    func status(reachable: Bool) -> MQTTMessage {
        MQTTMessage(topic: topics.status, text: reachable ? ClockTopics.online : ClockTopics.offline)
    }

    func execute(_ payload: [UInt8]) async {
        let line: String
        do throws(MQTTCommand.Refusal) {
            line = try MQTTCommand.line(payload)
        } catch {
            logger.warning("MQTT \(topics.command): ignored: \(error.reason)")
            return
        }
        do {
            let reply = try await link.send(line)
            if case .failed(let why)? = ControlReply.parse(reply) {
                logger.warning("MQTT \(topics.command): the clock refused \(line): \(why)")
            }
        } catch {
            logger.warning("MQTT \(topics.command): \(line) not delivered: the clock is unreachable (\(link.path))")
        }
    }
}

/// A `<prefix>/cmd` payload checked by the clock's own parser (`ControlRequest`, the socket's
/// wire contract) and re-encoded as its one line. Refused: more than `maximumBytes`, not
/// UTF-8 JSON, unknown commands or members, wrong types, and what only the socket's own
/// clients may ask (`subscribe`, `version`; `adopt`, which only the group sync sends).
public enum MQTTCommand {
    public static let maximumBytes = CommandBody.maximumBytes

    public struct Refusal: Error, Equatable {
        /// One line: no control character (a payload's bytes never reach the log raw).
        public var reason: String
        init(_ reason: String) {
            self.reason = String(reason.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        }
    }

    public static func line(_ payload: [UInt8]) throws(Refusal) -> String {
        guard payload.count <= maximumBytes else { throw Refusal("\(payload.count) bytes; a command is at most \(maximumBytes)") }
        let request: ControlRequest
        do {
            request = try ControlRequest.parse(payload)
        } catch {
            throw Refusal(error.description)
        }
        guard case .command = request else {
            throw Refusal("only the button commands (\(ControlCommand.words.joined(separator: ", "))) are taken "
                + "from MQTT; the state is on <prefix>/state")
        }
        return request.line
    }
}
