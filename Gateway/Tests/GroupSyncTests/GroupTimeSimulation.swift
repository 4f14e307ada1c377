import GroupSync
import TestSupport

/// Members' `GroupClock`s on simulated hosts whose monotonic clocks run apart (an offset and
/// a drift each), joined through a simulated broker: every message takes two hops (member →
/// broker → member) of a random delay each, in order per link; presences are retained and a
/// member that leaves has its presence emptied by its will after the keepalive. Driven in
/// true time (nanoseconds), seeded.
struct GroupTimeSimulation {
    struct Host {
        var clock: GroupClock
        /// local = true × (1 + drift) + offset; realtime = local + wallOffset.
        var offset: Int64
        var drift: Double
        var wallOffset: Int64
        var present = true
        func local(_ t: Int64) -> Int64 { t + Int64((Double(t) * drift).rounded()) + offset }
        func readings(_ t: Int64) -> GroupClock.Readings { .init(local: local(t), realtime: local(t) + wallOffset) }
    }

    enum Delivery {
        case presence(to: Int, from: String, GroupPresence?)
        case ask(to: Int, from: Int, sequence: Int64)
        case answer(to: Int, sequence: Int64, reference: String, received: Int64, sent: Int64)
        case settled(Int)
    }

    var hosts: [Host]
    var rng: SplitMix64
    let hop: ClosedRange<Int64>
    var now: Int64 = 0
    private var queue: [(at: Int64, order: Int, delivery: Delivery)] = []
    private var order = 0
    private var linkFree: [String: Int64] = [:]
    var retained: [String: GroupPresence] = [:]
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
        hosts[i].present = true
        apply(i, hosts[i].clock.handle(.connected))
        for (id, presence) in retained where id != hosts[i].clock.member {
            schedule(at: arrival(from: "broker", to: i), .presence(to: i, from: id, presence))
        }
        schedule(at: now + 1_000_000_000, .settled(i))
    }

    /// The host is gone without a goodbye: its will empties its presence after the keepalive.
    mutating func leave(_ i: Int) {
        hosts[i].present = false
        let id = hosts[i].clock.member
        retained[id] = nil
        let at = now + Self.keepalive
        for j in hosts.indices where j != i {
            schedule(at: at + hop.lowerBound, .presence(to: j, from: id, nil))
        }
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
                for i in hosts.indices where hosts[i].present { apply(i, hosts[i].clock.handle(.tick(hosts[i].readings(now)))) }
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
        case .settled(let i):
            guard hosts[i].present else { return }
            apply(i, hosts[i].clock.handle(.settled(hosts[i].readings(now))))
        case .presence(let i, let from, let presence):
            guard hosts[i].present else { return }
            apply(i, hosts[i].clock.handle(.presence(member: from, presence, hosts[i].readings(now))))
        case .ask(let i, let from, let sequence):
            guard hosts[i].present, let epoch = hosts[i].clock.epoch else { return }
            let received = hosts[i].local(now) + epoch
            let answer = Delivery.answer(to: from, sequence: sequence, reference: hosts[i].clock.member, received: received,
                                         sent: received + 40_000)
            send(from: i, to: from, answer)
        case .answer(let i, let sequence, let reference, let received, let sent):
            guard hosts[i].present else { return }
            apply(i, hosts[i].clock.handle(.answer(sequence: sequence, reference: reference, referenceReceived: received,
                                                   referenceSent: sent, received: hosts[i].local(now))))
        }
    }

    private mutating func apply(_ i: Int, _ effects: [GroupClock.Effect]) {
        for effect in effects {
            switch effect {
            case .presence(let presence):
                retained[hosts[i].clock.member] = presence
                for j in hosts.indices where j != i {
                    send(from: i, to: j, .presence(to: j, from: hosts[i].clock.member, presence))
                }
            case .ask(let reference, let sequence):
                guard let j = hosts.firstIndex(where: { $0.clock.member == reference }) else { continue }
                send(from: i, to: j, .ask(to: j, from: i, sequence: sequence))
            case .log: break
            }
        }
    }

    /// Member `i` → broker → member `j`, each hop in order on its link.
    private mutating func send(from i: Int, to j: Int, _ delivery: Delivery) {
        let atBroker = arrival(from: "\(i)", to: -1)
        let at = arrival(from: "broker", to: j, after: atBroker)
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
