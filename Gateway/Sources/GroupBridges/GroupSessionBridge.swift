import ClockLink
import ControlProtocol
#if canImport(Glibc)
import Glibc
#endif
import GroupSync
import Logging
import MosquittoClient
import Platform
import ServiceLifecycle
import Synchronization

/// Clocks in sync (docs/sync.md): this gateway's clock as one member of
/// the `[sync] group`. It feeds the pure `GroupMember` with the clock's state lines (through
/// the clock link's hub), the group topic's messages and the broker's connects and losses,
/// and carries out what the member decides: `adopt` on the control socket (one at a time, in
/// order), retained QoS 1 publishes on `roundclock/group/<group>/session`, log lines. The
/// member id is the MQTT client id.
///
/// The group's sessions are in group time (`GroupTimeBridge`); the clock's are on its wall
/// clock. A state line's anchor is moved onto CLOCK_MONOTONIC as it arrives, and from there
/// into group time; an adopted anchor goes the other way when it is sent. Until this member
/// has any estimate of group time, everything waits (its clock counts alone); while a round
/// runs, the clock's anchor is moved toward where group time puts it (`SessionRemap`: slewed,
/// or stepped forward), at instants well away from a change of the display.
public final class GroupSessionBridge: Sendable {
    public let topic: String
    let client: MQTTClient
    let link: ClockLink
    let logger: Logger
    let member: String
    let time: GroupTimeBridge
    private let inputs: AsyncStream<Item>
    private let inbox: AsyncStream<Item>.Continuation
    /// The running session's anchor as the clock holds it (monotonic) and in group time.
    private let clockAnchor = Mutex<(group: Int64, local: Int64)?>(nil)
    /// A correction of the running round is under way (logged once at its start).
    private let correcting = Mutex(false)
    /// Group messages in `inputs` not yet handled; at `queuedMessages` more are dropped.
    private let pendingMessages = Mutex(0)
    private let adopts: AsyncStream<AdoptCommand>
    private let adoptInbox: AsyncStream<AdoptCommand>.Continuation

    /// How often the running session's mapping is looked at.
    static let remapInterval = Duration.nanoseconds(SessionRemap.interval)
    /// Waiting items while this member has no group time; beyond, the oldest clock line or
    /// group message goes (a later one supersedes it), never a connection's news.
    static let waitingItems = 1024

    /// What the member's loop takes: its own inputs, the clock's lines with their anchor on
    /// CLOCK_MONOTONIC, and the news that group time became available or moved.
    enum Item: Sendable {
        case input(GroupMember.Input)
        case clock(ClockSession, localAnchor: Int64?)
        case timeChanged
        case remapCheck

        /// A clock line or a group message: a later one says what it said, if anything changed.
        var isSuperseded: Bool {
            switch self {
            case .clock, .input(.received): true
            default: false
            }
        }
    }
    /// Group messages waiting for the member; more are dropped with a log line (a flood).
    /// The clock's lines and the connection's news are never dropped.
    static let queuedMessages = 256

    public init(group: String, client: MQTTClient, time: GroupTimeBridge, link: ClockLink, logger: Logger) throws(MQTTError) {
        topic = MemberID.sessionTopic(group: group)
        self.client = client
        self.time = time
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
            inbox.yield(.input(.received(message.payload)))
        }
        client.reportLinkEvents(connected: { [inbox] in inbox.yield(.input(.connected)) },
                                settled: { [inbox] in inbox.yield(.input(.settled)) },
                                disconnected: { [inbox] in inbox.yield(.input(.disconnected)) })
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
                group.addTask { await self.time.run() }
                group.addTask { await self.watchTime() }
                group.addTask { await self.remapChecks() }
            }
        } onCancel: { [inbox, adoptInbox] in
            inbox.finish()
            adoptInbox.finish()
        }
    }

    private func runMember() async {
        var machine = GroupMember(member: member, firstToken: Self.firstToken())
        var waiting: [Item] = []
        var lastLocal: (line: ClockSession, converted: ClockSession)?
        var nextRemap: Task<Void, Never>?
        for await item in inputs {
            if case .input(.received) = item { pendingMessages.withLock { $0 -= 1 } }
            // Without group time, nothing can be placed in it: everything waits, in order.
            guard time.groupTime(atLocal: GroupTimeBridge.monotonicNow()) != nil else {
                if case .timeChanged = item { continue }
                if case .remapCheck = item { continue }
                waiting.append(item)
                if waiting.count > Self.waitingItems, let superseded = waiting.firstIndex(where: \.isSuperseded) {
                    waiting.remove(at: superseded)
                }
                continue
            }
            let ready = waiting + [item]
            waiting = []
            for item in ready {
                let input: GroupMember.Input
                switch item {
                case .input(.clockLost):
                    clockAnchor.withLock { $0 = nil }
                    input = .clockLost
                case .input(let given): input = given
                case .timeChanged: continue
                case .remapCheck:
                    guard let wait = remapWait(machine.current) else { continue }
                    if wait > 0 {
                        nextRemap?.cancel()
                        nextRemap = Task { [inbox] in
                            try? await Task.sleep(for: .nanoseconds(wait))
                            if !Task.isCancelled { inbox.yield(.remapCheck) }
                        }
                        continue
                    }
                    input = .remap
                case .clock(let line, let anchor):
                    // The same line again (the clock repeats its session on every state line)
                    // is the same session in group time too.
                    if let last = lastLocal, last.line == line {
                        input = .clock(last.converted, realtimeNanoseconds: groupNow())
                    } else {
                        var converted = line
                        if let anchor, let group = time.groupTime(atLocal: anchor) {
                            converted.session.anchorRealtimeNanoseconds = group
                            // An adopt's echo keeps the group anchor `runAdopts` sent.
                            if line.adopted == nil { clockAnchor.withLock { $0 = (group, anchor) } }
                        }
                        lastLocal = (line, converted)
                        input = .clock(converted, realtimeNanoseconds: groupNow())
                    }
                }
                carryOut(machine.handle(input))
            }
        }
    }

    private func carryOut(_ effects: [GroupMember.Effect]) {
        for effect in effects {
            switch effect {
            case .adopt(let command): adoptInbox.yield(command)
            case .publish(let message):
                if !client.publish(MQTTMessage(topic: topic, text: message.payload)) {
                    // Dropped: the broker is away. The member republishes once it is back.
                    inbox.yield(.input(.disconnected))
                }
            case .log(let line):
                switch line {
                case .malformed, .stale, .adoptFailed: logger.warning("group \(topic): \(line)")
                default: logger.notice("group \(topic): \(line)")
                }
            }
        }
    }

    /// Group time now (the member's loop runs only while there is one).
    private func groupNow() -> Int64 {
        time.groupTime(atLocal: GroupTimeBridge.monotonicNow()) ?? Self.realtimeNow()
    }

    /// For the running `current` session: `nil` when its mapping on the clock is close enough
    /// (or it does not run), else how long to wait (ns) for a safe instant, 0 for now.
    private func remapWait(_ current: GroupMessage?) -> Int64? {
        guard let session = current?.session, session.run == .running, let anchor = session.anchorRealtimeNanoseconds,
              let held = clockAnchor.withLock({ $0 }), held.group == anchor, let target = time.local(atGroupTime: anchor) else { return nil }
        guard SessionRemap.move(held: held.local, target: target) != nil else {
            if correcting.withLock({ $0 }) {
                correcting.withLock { $0 = false }
                logger.notice("group \(topic): the running round is where group time puts it again")
            }
            return nil
        }
        return SessionRemap.wait(elapsedBefore: session.elapsedBeforeNanoseconds, held: held.local, now: GroupTimeBridge.monotonicNow())
    }

    /// Where to put `anchor` (group time) on this host's monotonic clock for an adopt: where
    /// group time puts it, but for the round the clock already runs, a `SessionRemap` move
    /// from where the clock holds it, at a safe instant.
    private func localAnchor(for command: AdoptCommand, group anchor: Int64) async -> Int64? {
        guard let target = time.local(atGroupTime: anchor) else { return nil }
        guard let held = clockAnchor.withLock({ $0 }), held.group == anchor else { return target }
        guard let move = SessionRemap.move(held: held.local, target: target) else { return held.local }
        let elapsedBefore = command.session.elapsedBeforeNanoseconds
        guard let wait = SessionRemap.wait(elapsedBefore: elapsedBefore, held: held.local, now: GroupTimeBridge.monotonicNow()) else {
            return held.local
        }
        if wait > 0 { try? await Task.sleep(for: .nanoseconds(wait)) }
        let start = correcting.withLock { was in
            defer { was = true }
            return !was
        }
        switch move {
        case .step(let by):
            logger.warning(Logger.Message(stringLiteral: "group \(topic): this clock's round is \(Self.milliseconds(-by)) ms behind group time: it moves forward at once "
                           + "(the clock logs the bells it passes without ringing)"))
        case .slew(let by) where start:
            logger.notice(Logger.Message(stringLiteral: "group \(topic): this clock's round is \(Self.milliseconds(abs(target - held.local))) ms "
                          + "\(by > 0 ? "ahead of" : "behind") group time: it is moved by at most "
                          + "\(Self.milliseconds(SessionRemap.slewStep)) ms a second"))
        case .slew: break
        }
        return held.local + move.by
    }

    static func milliseconds(_ nanoseconds: Int64) -> String { GroupTimeStatus.milliseconds(nanoseconds) }

    /// Adopt tokens start at this gateway's start time in microseconds, so a restarted
    /// gateway never takes a token the clock still shows from its previous run for its own.
    static func firstToken() -> Int64 {
        max(1, realtimeNow() / 1000)
    }

    /// CLOCK_REALTIME now, nanoseconds since the Unix epoch.
    static func realtimeNow() -> Int64 { SystemReadings.clockReading(CLOCK_REALTIME).wholeNanoseconds }

    /// Sends each `adopt` with its anchor moved from group time onto this host's wall clock,
    /// through CLOCK_MONOTONIC read back to back with CLOCK_REALTIME.
    private func runAdopts() async {
        for await command in adopts {
            var sent = command
            if let group = command.session.anchorRealtimeNanoseconds {
                guard let local = await localAnchor(for: command, group: group) else {
                    inbox.yield(.input(.adoptFailed(token: command.token, reason: "no estimate of group time")))
                    continue
                }
                let (monotonic, realtime) = (GroupTimeBridge.monotonicNow(), Self.realtimeNow())
                sent.session.anchorRealtimeNanoseconds = GroupInstant.sum(GroupInstant.difference(local, monotonic), realtime)
                clockAnchor.withLock { $0 = (group, local) }
            }
            do {
                let reply = try await link.send(sent.line)
                if let why = AdoptCommand.refusal(inReply: reply) {
                    inbox.yield(.input(.adoptFailed(token: command.token, reason: "the clock refused it: \(why)")))
                }
            } catch {
                inbox.yield(.input(.adoptFailed(token: command.token, reason: "the clock did not answer: \(error)")))
            }
        }
    }

    /// The clock's state lines, each running anchor moved onto CLOCK_MONOTONIC at once (the
    /// wall clock may step later; the monotonic clock never does).
    private func watchClock() async {
        for await line in link.hub.subscribe() {
            do {
                guard let session = try ClockSession.parse(stateLine: line) else {
                    if ControlState.parse(line) == nil { inbox.yield(.input(.clockLost)) }
                    continue
                }
                let (monotonic, realtime) = (GroupTimeBridge.monotonicNow(), Self.realtimeNow())
                inbox.yield(.clock(session, localAnchor: session.session.anchorRealtimeNanoseconds.map { GroupInstant.sum(GroupInstant.difference($0, realtime), monotonic) }))
            } catch {
                logger.warning("group \(topic): the clock's state line has a session this gateway cannot read: \(error)")
            }
        }
    }

    /// Each change of the group time's status: the waiting items may go, and the state
    /// lines say it (`group_time`: `/api/state`, the phone page).
    private func watchTime() async {
        for await status in time.statusChanges() {
            link.setGroupTime(status.json.encoded)
            inbox.yield(.timeChanged)
        }
    }

    private func remapChecks() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.remapInterval)
            inbox.yield(.remapCheck)
        }
    }
}
