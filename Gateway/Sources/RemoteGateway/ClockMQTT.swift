import ControlProtocol
import Logging
import MosquittoClient
import Platform
import RoundClockCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The clock on MQTT (docs/mqtt-home-assistant.md): the session's report, made from the state
/// lines of the clock link, goes out retained on `<prefix>/state` whenever it changes (not on
/// every display change); `<prefix>/status` is `online` while the gateway is connected and the
/// clock reachable, else `offline` (also the last will); `<prefix>/cmd` takes the control
/// socket's command objects. Discovery configs, status and the latest report are republished on
/// every (re)connect.
public final class ClockMQTT: Sendable {
    public let client: MQTTClient
    public let topics: ClockTopics
    let discovery: HomeAssistantDiscovery
    let link: ClockLink
    let logger: Logger
    let realtimeNow: @Sendable () -> Int64
    /// The latest report, the program the select's options were last extended with, and
    /// whether the clock is reachable.
    private let latest = Mutex<(report: SessionReport?, extraOption: String?, reachable: Bool)>((nil, nil, false))
    /// The link's lines as reports, from the program the clock says it runs.
    private let reports = Mutex(ClockReports())
    private let commands: AsyncStream<[UInt8]>
    private let commandInbox: AsyncStream<[UInt8]>.Continuation
    /// The ignored and undelivered commands, for `MinuteReport`.
    let commandLog: MQTTCommandLog

    /// Commands waiting for the clock; more are ignored with a log line (a flood on `cmd`).
    public static let queuedCommands = 16
    /// How long a report waits after the select's config grew: Home Assistant applies a
    /// changed config asynchronously, and a state outside the old options is an error there.
    public static let optionsSettle = Duration.seconds(1)

    public init(client: MQTTClient, topics: ClockTopics, discovery: HomeAssistantDiscovery, link: ClockLink, logger: Logger,
                realtimeNow: @escaping @Sendable () -> Int64 = { SystemReadings.clockReading(CLOCK_REALTIME).wholeNanoseconds }) throws(MQTTError) {
        self.client = client
        self.topics = topics
        self.discovery = discovery
        self.link = link
        self.logger = logger
        self.realtimeNow = realtimeNow
        (commands, commandInbox) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(Self.queuedCommands))
        commandLog = MQTTCommandLog(topic: topics.command, logger: logger)
        try client.subscribe(topics.command) { [commandInbox, commandLog] message in
            if case .dropped = commandInbox.yield(message.payload) {
                commandLog.note("ignored: \(Self.queuedCommands) commands are already waiting for the clock")
            }
        }
        client.onConnect { [weak self] in self?.republish() }
    }

    /// The `[mqtt]` will: `offline`, retained.
    public static func will(_ topics: ClockTopics) -> MQTTMessage { MQTTMessage(topic: topics.status, text: ClockTopics.offline) }

    /// Publishes the clock's session and runs the commands until cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await line in link.hub.subscribe() { await clockSaid(line) }
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

    /// Publishes under the `latest` lock, so a reconnect's republish and a new report never
    /// cross (a stale report cannot overwrite a newer retained one). A report that equals the
    /// last one is not published: most lines change only a panel's text.
    func clockSaid(_ line: String) async {
        let report = reports.withLock { $0.report(after: line, realtimeNow: realtimeNow()) }
        let waitForOptions = latest.withLock { latest -> Bool in
            if latest.reachable != (report != nil) { client.publish(status(reachable: report != nil)) }
            latest.reachable = report != nil
            guard let report, latest.report.map({ report.differs(from: $0) }) ?? true else { return false }
            latest.report = report
            if discovery.options(including: latest.extraOption).contains(report.program) {
                client.publish(stateMessage(report))
                return false
            }
            latest.extraOption = report.program
            client.publish(discovery.selectMessage(running: report.program))
            return true
        }
        guard waitForOptions else { return }
        try? await Task.sleep(for: Self.optionsSettle)
        latest.withLock { latest in
            if let report = latest.report { client.publish(stateMessage(report)) }
        }
    }

    /// Discovery, status, report: on every (re)connect (the broker may have lost its
    /// retained messages, and messages are dropped while disconnected).
    func republish() {
        latest.withLock { latest in
            for message in discovery.messages(running: latest.extraOption) { client.publish(message) }
            client.publish(status(reachable: latest.reachable))
            if let report = latest.report { client.publish(stateMessage(report)) }
        }
    }

    func stateMessage(_ report: SessionReport) -> MQTTMessage { MQTTMessage(topic: topics.state, text: report.line) }

    func status(reachable: Bool) -> MQTTMessage {
        MQTTMessage(topic: topics.status, text: reachable ? ClockTopics.online : ClockTopics.offline)
    }

    func execute(_ payload: [UInt8]) async {
        let line: String
        do throws(MQTTCommand.Refusal) {
            line = try MQTTCommand.line(payload)
        } catch {
            commandLog.note("ignored: \(error.reason)")
            return
        }
        do {
            let reply = try await link.send(line)
            if case .failed(let why)? = ControlReply.parse(reply) {
                commandLog.note("the clock refused \(line): \(why)")
            }
        } catch {
            commandLog.note("\(line) not delivered: the clock is unreachable (\(link.path))")
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
