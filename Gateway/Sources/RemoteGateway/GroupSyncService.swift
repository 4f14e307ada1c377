import ControlProtocol
#if canImport(Glibc)
import Glibc
#endif
import GroupSync
import Logging
import MosquittoClient
import Platform
import RoundClockCore
import ServiceLifecycle
import Synchronization

/// Clocks in sync (docs/sync.md): this gateway's clock as one member of
/// the `[sync] group`. It feeds the pure `GroupMember` with the clock's state lines (through
/// the clock link's hub), the group topic's messages and the broker's connects and losses,
/// and carries out what the member decides: `adopt` on the control socket (one at a time, in
/// order), retained QoS 1 publishes on `roundclock/group/<group>/session`, log lines. The
/// member id is the MQTT client id. Also logs the wall clock's sync state at start and on
/// every change: members agree only as closely as their wall clocks do.
public final class GroupSyncBridge: Sendable {
    public let topic: String
    let client: MQTTClient
    let link: ClockLink
    let logger: Logger
    let member: String
    private let inputs: AsyncStream<GroupMember.Input>
    private let inbox: AsyncStream<GroupMember.Input>.Continuation
    /// Group messages in `inputs` not yet handled; at `queuedMessages` more are dropped.
    private let pendingMessages = Mutex(0)
    private let adopts: AsyncStream<AdoptCommand>
    private let adoptInbox: AsyncStream<AdoptCommand>.Continuation

    /// After a connect, how long the broker's retained message is waited for before the
    /// member takes the broker as holding none (it comes right after the SUBACK).
    public static let settleTime = Duration.milliseconds(1000)
    /// How often the connection, and the wall clock's sync state, are looked at.
    static let pollInterval = Duration.milliseconds(100)
    static let syncCheckInterval = Duration.seconds(30)
    /// Group messages waiting for the member; more are dropped with a log line (a flood).
    /// The clock's lines and the connection's news are never dropped.
    static let queuedMessages = 256

    public init(group: String, client: MQTTClient, link: ClockLink, logger: Logger) throws(MQTTError) {
        topic = MemberID.sessionTopic(group: group)
        self.client = client
        self.link = link
        self.logger = logger
        member = client.connection.clientID
        (inputs, inbox) = AsyncStream.makeStream()
        (adopts, adoptInbox) = AsyncStream.makeStream()
        try client.subscribe(topic) { [weak self] message in
            guard let self else { return }
            let room = pendingMessages.withLock { pending in
                guard pending < Self.queuedMessages else { return false }
                pending += 1
                return true
            }
            guard room else {
                logger.warning("group \(topic): message dropped: \(Self.queuedMessages) are already waiting")
                return
            }
            inbox.yield(.received(message.payload))
        }
        // On every connect, after the client subscribed the topic: the broker's retained
        // message follows its SUBACK; `settled` a `settleTime` later.
        client.onConnect { [inbox] in
            inbox.yield(.connected)
            Task {
                try? await Task.sleep(for: Self.settleTime)
                inbox.yield(.settled)
            }
        }
    }

    /// Why `clientID` cannot be a member id (it is one word of the group's messages).
    public static func memberProblem(_ clientID: String) -> String? {
        MemberID.problem(clientID).map { "the MQTT client id \(clientID.debugDescription) is the group member id and \($0)" }
    }

    /// Runs until cancelled.
    public func run() async {
        logger.notice("group sync: member \(member) of \(topic)")
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.runMember() }
                group.addTask { await self.runAdopts() }
                group.addTask { await self.watchClock() }
                group.addTask { await self.watchBroker() }
                group.addTask { await self.watchWallClock() }
            }
        } onCancel: { [inbox, adoptInbox] in
            inbox.finish()
            adoptInbox.finish()
        }
    }

    private func runMember() async {
        var machine = GroupMember(member: member, firstToken: Self.firstToken())
        for await input in inputs {
            if case .received = input { pendingMessages.withLock { $0 -= 1 } }
            for effect in machine.handle(input) {
                switch effect {
                case .adopt(let command): adoptInbox.yield(command)
                case .publish(let message):
                    if !client.publish(MQTTMessage(topic: topic, text: message.payload)) {
                        // Dropped: the broker is away. The member republishes once it is back.
                        inbox.yield(.disconnected)
                    }
                case .log(let line):
                    switch line {
                    case .malformed, .stale, .adoptFailed: logger.warning("group \(topic): \(line)")
                    default: logger.notice("group \(topic): \(line)")
                    }
                }
            }
        }
    }

    /// Adopt tokens start at this gateway's start time in microseconds, so a restarted
    /// gateway never takes a token the clock still shows from its previous run for its own.
    static func firstToken() -> Int64 {
        max(1, realtimeNow() / 1000)
    }

    /// CLOCK_REALTIME now, nanoseconds since the Unix epoch.
    static func realtimeNow() -> Int64 { SystemReadings.clockReading(CLOCK_REALTIME).wholeNanoseconds }

    private func runAdopts() async {
        for await command in adopts {
            do {
                let reply = try await link.send(command.line)
                if let why = AdoptCommand.refusal(inReply: reply) {
                    inbox.yield(.adoptFailed(token: command.token, reason: "the clock refused it: \(why)"))
                }
            } catch {
                inbox.yield(.adoptFailed(token: command.token, reason: "the clock did not answer: \(error)"))
            }
        }
    }

    private func watchClock() async {
        for await line in link.hub.subscribe() {
            do {
                guard let session = try ClockSession.parse(stateLine: line) else {
                    if ControlState.parse(line) == nil { inbox.yield(.clockLost) }
                    continue
                }
                inbox.yield(.clock(session, realtimeNanoseconds: Self.realtimeNow()))
            } catch {
                logger.warning("group \(topic): the clock's state line has a session this gateway cannot read: \(error)")
            }
        }
    }

    /// The client reports connects by callback (`onConnect`, above) and a lost broker only
    /// through `isConnected`, looked at every `pollInterval`.
    private func watchBroker() async {
        var wasConnected = false
        while !Task.isCancelled {
            let connected = client.isConnected
            if wasConnected, !connected { inbox.yield(.disconnected) }
            wasConnected = connected
            try? await Task.sleep(for: Self.pollInterval)
        }
    }

    private func watchWallClock() async {
        var last: Bool?
        while !Task.isCancelled {
            let state = ClockSync.state()
            if state.synchronized != last {
                if state.synchronized { logger.notice("group sync: \(state)") } else { logger.warning("group sync: \(state); members agree only as closely as their wall clocks (docs/sync.md)") }
                last = state.synchronized
            }
            try? await Task.sleep(for: Self.syncCheckInterval)
        }
    }
}

/// The group sync as a service of the gateway: runs until graceful shutdown.
struct GroupSyncService: Service {
    let sync: GroupSyncBridge
    func run() async throws {
        await cancelWhenGracefulShutdown { await sync.run() }
    }
}
