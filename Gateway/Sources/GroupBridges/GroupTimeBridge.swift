#if canImport(Glibc)
import Glibc
#endif
import GroupSync
import Logging
import MosquittoClient
import Platform
import Synchronization

/// The group's time (docs/sync.md "Group time") for this gateway: a connection of its own to
/// the broker (client id `<member>.time`), whose will empties the member's retained presence
/// when it leaves; the pure `GroupClock` fed with presences, answers and ticks; and, while
/// this member is the reference, the answers to the others' asks, stamped and sent from the
/// network thread the moment an ask arrives. Readers map instants between this host's
/// monotonic clock and group time with `groupTime(atLocal:)` and `local(atGroupTime:)`.
public final class GroupTimeBridge: Sendable {
    public let group: String
    public let member: String
    let client: MQTTClient
    let logger: Logger
    private let clock: Mutex<GroupClock>
    private let changes: Mutex<[AsyncStream<GroupTimeStatus>.Continuation]> = Mutex([])
    /// Malformed round trips and presences: a line each for the first of a minute, then a sum.
    private let refusals = Mutex(RefusalLog())

    /// The loop wakes when the next ask is due, and at least this often to look at the
    /// connection and the estimate's age.
    static let longestTick: Int64 = 500_000_000

    /// The connection for `member`'s group time; `base` is the gateway's own (broker, login,
    /// TLS, keepalive).
    public static func connection(base: MQTTConnection, group: String) -> MQTTConnection {
        var connection = base
        connection.clientID = base.clientID + ".time"
        connection.will = MQTTMessage(topic: GroupPresence.topic(group: group, member: base.clientID), payload: [])
        return connection
    }

    public init(group: String, member: String, client: MQTTClient, logger: Logger) throws(MQTTError) {
        self.group = group
        self.member = member
        self.client = client
        self.logger = logger
        clock = Mutex(GroupClock(member: member))
        try client.subscribe(GroupPresence.filter(group: group)) { [weak self] message in
            guard let self, let id = GroupPresence.member(inTopic: message.topic, group: group) else { return }
            do {
                let presence = try GroupPresence.parse(message.payload)
                handle(.presence(member: id, presence, Self.readings()))
            } catch {
                if refusals.withLock({ $0.refused(at: Self.monotonicNow()) }) {
                    logger.warning("group time: presence of \(id) ignored, malformed: \(error)")
                }
            }
        }
        try client.subscribe(GroupTimeMessage.askTopic(group: group, member: member)) { [weak self] message in
            let received = Self.monotonicNow()
            guard let self else { return }
            do {
                switch try GroupTimeMessage.parse(message.payload) {
                case .ask(let sequence, let from): answer(sequence, to: from, receivedAt: received)
                case .answer(let sequence, let reference, let referenceReceived, let referenceSent):
                    handle(.answer(sequence: sequence, reference: reference, referenceReceived: referenceReceived,
                                   referenceSent: referenceSent, received: received))
                }
            } catch {
                if refusals.withLock({ $0.refused(at: received) }) {
                    logger.warning("group time: message ignored, malformed: \(error)")
                }
            }
        }
        client.reportLinkEvents(connected: { [weak self] in self?.handle(.connected) },
                                settled: { [weak self] in self?.handle(.settled(Self.readings())) },
                                disconnected: { [weak self] in self?.handle(.disconnected) })
    }

    /// Group time at the monotonic instant `local` (ns), or `nil` with no estimate at all.
    public func groupTime(atLocal local: Int64) -> Int64? { clock.withLock { $0.groupTime(atLocal: local) } }
    /// The monotonic instant (ns) at which group time is `group`, or `nil` with no estimate.
    public func local(atGroupTime group: Int64) -> Int64? { clock.withLock { $0.local(atGroupTime: group) } }
    public var status: GroupTimeStatus { clock.withLock { $0.status } }

    /// The status now and at each change.
    public func statusChanges() -> AsyncStream<GroupTimeStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: GroupTimeStatus.self, bufferingPolicy: .bufferingNewest(8))
        changes.withLock { list in
            list.append(continuation)
            continuation.yield(clock.withLock { $0.status })
        }
        return stream
    }

    /// Runs until cancelled: the connection, and the ticks that send the asks.
    public func run() async {
        do {
            try client.start()
        } catch {
            logger.error("group time: \(error)")
        }
        while !Task.isCancelled {
            let now = Self.readings()
            handle(.tick(now))
            if let count = refusals.withLock({ $0.summary(at: now.local) }) {
                logger.warning("group time: \(count) more malformed messages ignored in the last minute (the first \(RefusalLog.linesPerMinute) of a minute are logged one by one)")
            }
            let due = clock.withLock { $0.nextDue } ?? .max
            let wait = min(max(due - Self.monotonicNow(), 1_000_000), Self.longestTick)
            try? await Task.sleep(for: .nanoseconds(wait))
        }
        changes.withLock { list in
            for continuation in list { continuation.finish() }
        }
        await client.stop(final: MQTTMessage(topic: GroupPresence.topic(group: group, member: member), payload: []))
    }

    /// As the reference: the answer, stamped in group time when the ask arrived and now.
    private func answer(_ sequence: Int64, to asker: String, receivedAt received: Int64) {
        guard MemberID.problem(asker) == nil, let epoch = clock.withLock({ $0.epoch }) else { return }
        let message = GroupTimeMessage.answer(sequence: sequence, reference: member, received: received + epoch,
                                              sent: Self.monotonicNow() + epoch)
        client.publish(MQTTMessage(topic: GroupTimeMessage.askTopic(group: group, member: asker), text: message.payload,
                                   retain: false, atMostOnce: true))
    }

    /// Presences are published under the lock, in the order the state machine decides them,
    /// so the broker's retained one is always the latest (the network thread and the ask loop
    /// both feed the machine).
    private func handle(_ input: GroupClock.Input) {
        let (effects, status) = clock.withLock { clock in
            let effects = clock.handle(input)
            for case .presence(let presence) in effects {
                client.publish(MQTTMessage(topic: GroupPresence.topic(group: group, member: member), text: presence.payload))
            }
            return (effects, clock.status)
        }
        for effect in effects {
            switch effect {
            case .presence: break
            case .conflictingAnswers(let count):
                logger.warning(Logger.Message(stringLiteral: "group time: \(count) of the asks to \(clock.withLock { $0.reference } ?? "the reference") had two different answers: "
                               + "another client answers in its name; neither answer is used"))
            case .silentReference(let reference):
                logger.warning(Logger.Message(stringLiteral: "group time: the reference \(reference) has not answered for \(GroupClock.silenceLimit / 1_000_000_000) s: "
                               + "taken as gone until its presence changes"))
            case .ask(let reference, let sequence):
                client.publish(MQTTMessage(topic: GroupTimeMessage.askTopic(group: group, member: reference),
                                           text: GroupTimeMessage.ask(sequence: sequence, from: member).payload,
                                           retain: false, atMostOnce: true))
            case .log(let line):
                if line.isSynced { logger.notice("group time: \(line)") } else { logger.warning("group time: \(line)") }
                changes.withLock { list in
                    for continuation in list { continuation.yield(status) }
                }
            }
        }
    }

    static func monotonicNow() -> Int64 { MonotonicClock.read().wholeNanoseconds }

    static func readings() -> GroupClock.Readings {
        let local = monotonicNow()
        return GroupClock.Readings(local: local, realtime: SystemReadings.clockReading(CLOCK_REALTIME).wholeNanoseconds)
    }
}
