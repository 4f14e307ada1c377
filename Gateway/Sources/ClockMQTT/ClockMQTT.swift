import ClockLink
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
/// every display change); `<prefix>/status` says whether the gateway is connected and the
/// clock reachable (`ClockAvailability`: `online` once per connection, after the discovery
/// configs and the report; `offline` when the clock is lost, at a clean stop, and as the last
/// will); `<prefix>/cmd` takes the control socket's command objects. Discovery configs, the
/// latest report and status are republished on every (re)connect, in that order.
public final class ClockMQTT: Sendable {
    public let client: MQTTClient
    public let topics: ClockTopics
    let discovery: HomeAssistantDiscovery
    let link: ClockLink
    let logger: Logger
    let realtimeNow: @Sendable () -> Int64
    /// What was published: the latest report, the program the select's options were last
    /// extended with, and the availability.
    private let latest = Mutex(Published())
    struct Published {
        package var report: SessionReport?
        var extraOption: String?
        var availability = ClockAvailability()
    }
    /// The link's lines as reports, from the program the clock says it runs.
    private let reports = Mutex(ClockReports())
    private let commands: AsyncStream<[UInt8]>
    private let commandInbox: AsyncStream<[UInt8]>.Continuation
    /// The ignored and undelivered commands, for `MinuteReport`.
    package let commandLog: MQTTCommandLog

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
        client.onDisconnect { [weak self] in self?.latest.withLock { $0.availability.disconnected() } }
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

    /// Publishes `offline` (waiting for the broker's PUBACK), unless this connection already
    /// said `offline`, and disconnects. Nothing else goes on `status` after it.
    public func stop() async {
        commandInbox.finish()
        let saidOffline = latest.withLock { latest in
            latest.availability.stop()
            return latest.availability.announced == ClockTopics.offline
        }
        await client.stop(final: saidOffline ? nil : Self.will(topics))
    }

    /// Publishes under the `latest` lock, so a reconnect's republish and a new report never
    /// cross (a stale report cannot overwrite a newer retained one). A report that equals the
    /// last one is not published: most lines change only a panel's text. `status` follows the
    /// report, and waits with it while Home Assistant takes a grown select.
    func clockSaid(_ line: String) async {
        let report = reports.withLock { $0.report(after: line, realtimeNow: realtimeNow()) }
        let waitForOptions = latest.withLock { latest -> Bool in
            latest.availability.clockSaid(reachable: report != nil)
            defer { announce(&latest) }
            guard let report, latest.report.map({ report.differs(from: $0) }) ?? true else { return false }
            latest.report = report
            if discovery.options(including: latest.extraOption).contains(report.program) {
                client.publish(stateMessage(report))
                return false
            }
            latest.extraOption = report.program
            client.publish(discovery.selectMessage(running: report.program))
            latest.availability.reportWaiting = true
            return true
        }
        guard waitForOptions else { return }
        try? await Task.sleep(for: Self.optionsSettle)
        latest.withLock { latest in
            latest.availability.reportWaiting = false
            if let report = latest.report { client.publish(stateMessage(report)) }
            announce(&latest)
        }
    }

    /// Discovery, report, status: on every (re)connect (the broker may have lost its
    /// retained messages, and messages are dropped while disconnected). Home Assistant sees
    /// the entities available only once their configs and state are there.
    func republish() {
        latest.withLock { latest in
            guard !latest.availability.stopped else { return }
            for message in discovery.messages(running: latest.extraOption) { client.publish(message) }
            if let report = latest.report { client.publish(stateMessage(report)) }
            latest.availability.connected()
            announce(&latest)
        }
    }

    /// Publishes the status `ClockAvailability` wants now, if any.
    private func announce(_ latest: inout Published) {
        guard let status = latest.availability.due, client.publish(MQTTMessage(topic: topics.status, text: status)) else { return }
        latest.availability.announced = status
    }

    func stateMessage(_ report: SessionReport) -> MQTTMessage { MQTTMessage(topic: topics.state, text: report.line) }

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

/// What `<prefix>/status` says, and when: what the connection and the clock link have said,
/// and what this connection has published. It says `online` once per connection, after that
/// connection's discovery configs and report, and `offline` only when the clock is known to
/// be unreachable, so a gateway that starts or reconnects never says `offline` on the way to
/// `online` (Home Assistant would show every entity unavailable for that moment).
struct ClockAvailability {
    /// Whether the clock answers: `nil` until the link has reached it or failed to.
    private(set) var clockReachable: Bool?
    /// Unreachable lines while `clockReachable` is `nil`. The link sends one before its first
    /// attempt and one after each failed attempt, so the first alone says nothing yet.
    private var unreachableLines = 0
    /// The connection's discovery configs and report are out: set by each connect's
    /// republish, cleared when the connection ends.
    private(set) var ready = false
    /// What this connection published on `status`; `nil`: nothing yet.
    var announced: String?
    /// A report waits until Home Assistant has taken the grown select: `status` follows it.
    var reportWaiting = false
    /// `stop` began: its `offline` is the last word.
    private(set) var stopped = false

    mutating func clockSaid(reachable: Bool) {
        if reachable || clockReachable != nil {
            clockReachable = reachable
            return
        }
        unreachableLines += 1
        if unreachableLines > 1 { clockReachable = false }
    }

    mutating func connected() {
        ready = true
        announced = nil
    }

    mutating func disconnected() {
        ready = false
        announced = nil
    }

    mutating func stop() { stopped = true }

    /// The status to publish now: what the clock's reachability says, when this connection
    /// is ready and has not said it yet.
    var due: String? {
        guard ready, !reportWaiting, !stopped, let clockReachable else { return nil }
        let status = clockReachable ? ClockTopics.online : ClockTopics.offline
        return status == announced ? nil : status
    }
}

/// A `<prefix>/cmd` payload checked by the clock's own parser (`ControlRequest`, the socket's
/// wire contract) and re-encoded as its one line. Refused: more than `maximumBytes`, not
/// UTF-8 JSON, unknown commands or members, wrong types, and what only the socket's own
/// clients may ask (`subscribe`, `version`; `adopt`, which only the group sync sends; `show-pin`,
/// which only the gateway sends).
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
        guard case .command(let command) = request, command.isButton else {
            throw Refusal("only the button commands (\(ControlCommand.words.joined(separator: ", "))) are taken "
                + "from MQTT; the state is on <prefix>/state")
        }
        return request.line
    }
}
