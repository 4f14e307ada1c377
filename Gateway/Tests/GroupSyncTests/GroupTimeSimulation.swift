import GroupSync
import TestSupport

/// Members' `GroupClock`s on simulated hosts whose monotonic clocks run apart (an offset and
/// a drift each), joined through simulated brokers: every message takes two hops (member →
/// broker → member) of a random delay each, in order per link; presences are retained per
/// broker and a member that leaves has its presence emptied by its will after the keepalive.
/// Members can be cut off and come back, gateways and brokers restart, a reference's answers
/// can be off by a step, a member can move to another broker (two groups merging), and a
/// forger on a broker can answer the asks it sees. Driven in true time (nanoseconds), seeded.
struct GroupTimeSimulation {
    struct Host {
        var clock: GroupClock
        /// local = true × (1 + drift) + offset; realtime = local + wallOffset.
        var offset: Int64
        var drift: Double
        var wallOffset: Int64
        /// The gateway runs (it ticks); `present`: it is connected to its broker.
        var running = true
        var present = true
        var broker = 0
        /// Added to the group time in this member's answers (a reference whose time stepped).
        var answerSkew: Int64 = 0
        /// Every effect logged, in order.
        var logs: [GroupClock.Effect] = []
        func local(_ t: Int64) -> Int64 { t + Int64((Double(t) * drift).rounded()) + offset }
        func readings(_ t: Int64) -> GroupClock.Readings { .init(local: local(t), realtime: local(t) + wallOffset) }
    }

    enum Delivery {
        case presence(to: Int, from: String, GroupPresence?)
        case ask(to: Int, from: Int, sequence: Int64)
        case answer(to: Int, sequence: Int64, reference: String, received: Int64, sent: Int64)
        case forged(to: Int, payload: [UInt8], direct: (sequence: Int64, received: Int64, sent: Int64)?)
        case settled(Int)
        case connect(Int)
        case will(of: Int, broker: Int)
    }

    var hosts: [Host]
    var rng: SplitMix64
    let hop: ClosedRange<Int64>
    var now: Int64 = 0
    private var queue: [(at: Int64, order: Int, delivery: Delivery)] = []
    private var order = 0
    private var linkFree: [String: Int64] = [:]
    var retained: [Int: [String: GroupPresence]] = [:]
    /// Percent of the asks a forger on the broker answers, with what `forgedAnswer` makes.
    var forgeRate: UInt64 = 0
    var forgedSent = 0, forgedRefused = 0
    static let tick: Int64 = 20_000_000
    static let keepalive: Int64 = 7_500_000_000

    /// `hop`: one hop's delay range (ns).
    init(seed: UInt64, hosts: [(id: String, offset: Int64, drift: Double, wall: Int64)], hop: ClosedRange<Int64>) {
        rng = SplitMix64(seed: seed)
        self.hop = hop
        self.hosts = hosts.map { Host(clock: GroupClock(member: $0.id), offset: $0.offset, drift: $0.drift, wallOffset: $0.wall) }
    }

    /// Connects every host (their presences arrive, then `settled` a second later).
    mutating func start() {
        for i in hosts.indices { connect(i) }
    }

    mutating func connect(_ i: Int) {
        hosts[i].running = true
        hosts[i].present = true
        apply(i, hosts[i].clock.handle(.connected))
        for (id, presence) in retained[hosts[i].broker, default: [:]] where id != hosts[i].clock.member {
            schedule(at: arrival(from: "broker\(hosts[i].broker)", to: i), .presence(to: i, from: id, presence))
        }
        schedule(at: now + 1_000_000_000, .settled(i))
    }

    /// The host is gone without a goodbye: its will empties its presence after the keepalive.
    mutating func leave(_ i: Int) {
        hosts[i].running = false
        cutOff(i)
    }

    /// The host's connection is lost while its gateway runs on: the broker fires its will.
    mutating func cutOff(_ i: Int) {
        hosts[i].present = false
        if hosts[i].running { apply(i, hosts[i].clock.handle(.disconnected)) }
        let id = hosts[i].clock.member, broker = hosts[i].broker
        let at = now + Self.keepalive
        retained[broker]?[id] = nil
        for j in hosts.indices where j != i && hosts[j].broker == broker {
            schedule(at: at + hop.lowerBound, .presence(to: j, from: id, nil))
        }
    }

    /// The gateway restarts (a clean stop empties its presence at once), forgetting its state.
    mutating func restartGateway(_ i: Int, after delay: Int64) {
        let id = hosts[i].clock.member, broker = hosts[i].broker
        retained[broker]?[id] = nil
        for j in hosts.indices where j != i && hosts[j].broker == broker { send(from: i, to: j, .presence(to: j, from: id, nil)) }
        hosts[i].present = false
        hosts[i].running = false
        hosts[i].clock = GroupClock(member: id)
        schedule(at: now + delay, .connect(i))
    }

    /// The broker restarts without persistence: every member loses it, its retained presences
    /// are gone, and each member reconnects within `reconnect`, but those in `stopping`, whose
    /// gateways stop meanwhile.
    mutating func restartBroker(_ broker: Int, reconnect: ClosedRange<Int64>, stopping: Set<Int> = []) {
        retained[broker] = [:]
        for i in hosts.indices where hosts[i].broker == broker && hosts[i].present {
            hosts[i].present = false
            apply(i, hosts[i].clock.handle(.disconnected))
            if stopping.contains(i) {
                hosts[i].running = false
            } else {
                schedule(at: now + Int64.random(in: reconnect, using: &rng), .connect(i))
            }
        }
    }

    /// The gateway dies and starts again after `delay` (less than the keepalive): the broker
    /// fires the old connection's will a keepalive after the loss, on the new one's presence.
    mutating func crashGateway(_ i: Int, restartAfter delay: Int64) {
        let id = hosts[i].clock.member, broker = hosts[i].broker
        hosts[i].present = false
        hosts[i].running = false
        hosts[i].clock = GroupClock(member: id)
        schedule(at: now + delay, .connect(i))
        schedule(at: now + Self.keepalive, .will(of: i, broker: broker))
    }

    /// The member leaves its broker (its will fires there) and connects to `broker`.
    mutating func move(_ i: Int, to broker: Int) {
        cutOff(i)
        hosts[i].broker = broker
        connect(i)
    }

    /// Runs until true time `end`, calling `observe` every `every` ns.
    mutating func run(until end: Int64, every: Int64 = 100_000_000, observe: (inout GroupTimeSimulation) -> Void = { _ in }) {
        var nextTick = now - now % Self.tick + Self.tick
        var nextObservation = now - now % every + every
        while now < end {
            let nextDelivery = queue.map(\.at).min() ?? .max
            let next = min(nextDelivery, nextTick, nextObservation, end)
            now = next
            if next == nextDelivery, let index = queue.indices.min(by: { (queue[$0].at, queue[$0].order) < (queue[$1].at, queue[$1].order) }) {
                let item = queue.remove(at: index)
                deliver(item.delivery)
            } else if next == nextTick {
                for i in hosts.indices where hosts[i].running { apply(i, hosts[i].clock.handle(.tick(hosts[i].readings(now)))) }
                nextTick += Self.tick
            } else if next == nextObservation {
                observe(&self)
                nextObservation += every
            }
        }
    }

    /// Group time as each present host with an estimate reads it at true time `now`.
    func groupTimes(synced: Bool = true) -> [Int64] {
        hosts.filter { $0.present && (!synced || $0.clock.status.isSynced) }.compactMap { $0.clock.groupTime(atLocal: $0.local(now)) }
    }

    private mutating func deliver(_ delivery: Delivery) {
        switch delivery {
        case .connect(let i): connect(i)
        case .will(let i, let broker):
            let id = hosts[i].clock.member
            retained[broker]?[id] = nil
            for j in hosts.indices where hosts[j].broker == broker {
                schedule(at: arrival(from: "broker\(broker)", to: j), .presence(to: j, from: id, nil))
            }
        case .settled(let i):
            guard hosts[i].present else { return }
            apply(i, hosts[i].clock.handle(.settled(hosts[i].readings(now))))
        case .presence(let i, let from, let presence):
            guard hosts[i].present else { return }
            apply(i, hosts[i].clock.handle(.presence(member: from, presence, hosts[i].readings(now))))
        case .ask(let i, let from, let sequence):
            guard hosts[i].present, let epoch = hosts[i].clock.epoch else { return }
            let received = hosts[i].local(now) + epoch + hosts[i].answerSkew
            let answer = Delivery.answer(to: from, sequence: sequence, reference: hosts[i].clock.member, received: received,
                                         sent: received + 40_000)
            send(from: i, to: from, answer)
        case .answer(let i, let sequence, let reference, let received, let sent):
            guard hosts[i].present else { return }
            apply(i, hosts[i].clock.handle(.answer(sequence: sequence, reference: reference, referenceReceived: received,
                                                   referenceSent: sent, received: hosts[i].local(now))))
        case .forged(let i, let payload, let direct):
            guard hosts[i].present, let reference = hosts[i].clock.reference else { return }
            if let direct {
                // Past the parser, straight into the state machine: it must hold on its own.
                apply(i, hosts[i].clock.handle(.answer(sequence: direct.sequence, reference: reference, referenceReceived: direct.received,
                                                       referenceSent: direct.sent, received: hosts[i].local(now))))
                return
            }
            guard case .answer(let sequence, let from, let received, let sent)? = try? GroupTimeMessage.parse(payload) else {
                forgedRefused += 1
                return
            }
            apply(i, hosts[i].clock.handle(.answer(sequence: sequence, reference: from, referenceReceived: received,
                                                   referenceSent: sent, received: hosts[i].local(now))))
        }
    }

    private mutating func apply(_ i: Int, _ effects: [GroupClock.Effect]) {
        for effect in effects {
            hosts[i].logs.append(effect)
            switch effect {
            case .presence(let presence):
                retained[hosts[i].broker, default: [:]][hosts[i].clock.member] = presence
                for j in hosts.indices where hosts[j].broker == hosts[i].broker {
                    send(from: i, to: j, .presence(to: j, from: hosts[i].clock.member, presence))
                }
            case .ask(let reference, let sequence):
                if forgeRate > 0, rng.chance(forgeRate) { forge(to: i, sequence: sequence, reference: reference) }
                guard let j = hosts.firstIndex(where: { $0.clock.member == reference }), hosts[j].broker == hosts[i].broker else { continue }
                send(from: i, to: j, .ask(to: j, from: i, sequence: sequence))
            case .log, .conflictingAnswers, .silentReference: break
            }
        }
    }

    /// A forger subscribed to the broker sees the ask and answers it in the reference's name,
    /// as fast as the reference (or faster).
    private mutating func forge(to i: Int, sequence: Int64, reference: String) {
        forgedSent += 1
        let genuine = hosts.first(where: { $0.clock.member == reference && $0.clock.epoch != nil })
            .map { $0.local(now) + $0.clock.epoch! } ?? 1_795_000_000_000_000_000
        let extremes: [Int64] = [.max, .min, 0, -1, GroupInstant.maximum, GroupInstant.maximum + 1, 1 << 62, -(1 << 62)]
        let (received, sent): (Int64, Int64) = switch rng.next() % 6 {
        case 0: (.max, 0)  // the crash this simulation first found
        case 1: (rng.pick(extremes), rng.pick(extremes))
        case 2: (Int64(bitPattern: rng.next()), Int64(bitPattern: rng.next()))
        case 3:  // plausible, but seconds off
            { let t = genuine + Int64.random(in: -10_000_000_000...10_000_000_000, using: &rng); return (t, t + 40_000) }()
        case 4: (genuine + 1_000_000, genuine)  // sent before received
        default: (genuine, genuine + 40_000)  // what the reference says, near enough
        }
        let direct = rng.chance(25)
        let payload = Array(#"{"answer": \#(sequence), "reference": "\#(reference)", "received_ns": \#(received), "sent_ns": \#(sent)}"#.utf8)
        let at = arrival(from: "forger", to: i, after: now + hop.lowerBound)
        schedule(at: at, .forged(to: i, payload: payload, direct: direct ? (sequence, received, sent) : nil))
    }

    /// Member `i` → broker → member `j`, each hop in order on its link.
    private mutating func send(from i: Int, to j: Int, _ delivery: Delivery) {
        let atBroker = arrival(from: "\(i)", to: -1)
        let at = arrival(from: "broker\(hosts[j].broker)", to: j, after: atBroker)
        schedule(at: at, delivery)
    }

    private mutating func arrival(from: String, to: Int, after: Int64? = nil) -> Int64 {
        let key = "\(from)>\(to)"
        let at = max((after ?? now) + Int64.random(in: hop, using: &rng), linkFree[key] ?? .min)
        linkFree[key] = at
        return at
    }

    private mutating func schedule(at: Int64, _ delivery: Delivery) {
        order += 1
        queue.append((at, order, delivery))
    }
}
