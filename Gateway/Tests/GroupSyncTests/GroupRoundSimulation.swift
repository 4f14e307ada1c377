import GroupSync
import RoundClockCore

/// An instant of a simulated host's monotonic clock (nanoseconds), for its `Controller`.
struct HostInstant: InstantProtocol, Hashable, Sendable {
    var nanoseconds: Int64
    func advanced(by duration: Duration) -> HostInstant {
        HostInstant(nanoseconds: nanoseconds + duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
    func duration(to other: HostInstant) -> Duration { .nanoseconds(other.nanoseconds - nanoseconds) }
    static func < (a: HostInstant, b: HostInstant) -> Bool { a.nanoseconds < b.nanoseconds }
}

/// One round running on every member of a `GroupTimeSimulation`, each on its own clock's
/// `Controller` (the clock's real session and bell logic), kept where group time puts it as
/// the gateway does: every `SessionRemap.interval` the mapping is looked at and, when off,
/// the clock is handed the round again with the anchor `SessionRemap` moves, at the instant
/// `SessionRemap.wait` names. Every `every` of true time each clock's running time is read
/// (what its panels show, to the tenth) and its bells collected, so a test can assert that
/// no tenth is shown twice, no bell rings twice and none passes unnamed.
struct GroupRoundSimulation {
    struct Member {
        var clock: Controller<HostInstant>
        /// The round's anchor as the clock holds it (local ns); `nil` before it runs.
        var held: Int64?
        var nextCheck: Int64 = 0
        var remapAt: Int64?
        var lastTenth: Int64?
        /// Tenths shown again (a violation), forward jumps (true ns, from, to tenth).
        var repeated: [(at: Int64, from: Int64, to: Int64)] = []
        var jumps: [(at: Int64, from: Int64, to: Int64)] = []
        /// Signal indexes rung, in order; the adopt notes; the instants of forward steps.
        var rung: [Int] = []
        var notes: [String] = []
        var steps: [Int64] = []
        var slews = 0
        /// The round's anchor in the group time of the group it started in.
        var groupAnchor: Int64?
    }

    var time: GroupTimeSimulation
    var members: [Member]
    let program: Program

    init(time: GroupTimeSimulation, program: Program) {
        self.time = time
        self.program = program
        members = time.hosts.map { _ in Member(clock: Controller(program: program)) }
    }

    /// Starts the round on every member of `broker` that has group time, at its reference's now.
    mutating func start(broker: Int) {
        guard let reference = time.hosts.firstIndex(where: { $0.broker == broker && $0.present && $0.clock.epoch != nil }),
              let anchor = time.hosts[reference].clock.groupTime(atLocal: time.hosts[reference].local(time.now)) else { return }
        for i in members.indices where time.hosts[i].broker == broker {
            members[i].groupAnchor = anchor
            guard let local = time.hosts[i].clock.local(atGroupTime: anchor) else { continue }
            let now = time.hosts[i].local(time.now)
            members[i].held = local
            members[i].nextCheck = now + SessionRemap.interval
            collect(i, members[i].clock.adopt(Session(program: program, anchor: HostInstant(nanoseconds: local)), at: HostInstant(nanoseconds: now), note: "start"))
        }
    }

    mutating func run(until end: Int64, every: Int64 = 5_000_000) {
        var members = self.members
        let program = self.program
        time.run(until: end, every: every) { time in
            for i in members.indices where time.hosts[i].running {
                Self.observe(&members[i], host: time.hosts[i], now: time.now, program: program)
            }
        }
        self.members = members
    }

    private static func observe(_ m: inout Member, host: GroupTimeSimulation.Host, now trueNow: Int64, program: Program) {
        guard let held = m.held else { return }
        let now = host.local(trueNow)
        let instant = HostInstant(nanoseconds: now)
        Self.collect(&m, m.clock.advance(to: instant), program: program)
        // The gateway's remap: looked at every interval; carried out at the safe instant.
        if let anchor = m.groupAnchor, let target = host.clock.local(atGroupTime: anchor) {
            if now >= m.nextCheck {
                m.nextCheck += SessionRemap.interval
                if m.remapAt == nil, SessionRemap.move(held: held, target: target) != nil,
                   let wait = SessionRemap.wait(elapsedBefore: 0, held: held, now: now) {
                    m.remapAt = now + wait
                }
            }
            if let due = m.remapAt, now >= due {
                m.remapAt = nil
                if let move = SessionRemap.move(held: held, target: target) {
                    if let wait = SessionRemap.wait(elapsedBefore: 0, held: held, now: now), wait > 0 {
                        m.remapAt = now + wait
                    } else {
                        let moved = held + move.by
                        m.held = moved
                        if case .step = move { m.steps.append(trueNow) } else { m.slews += 1 }
                        Self.collect(&m, m.clock.adopt(Session(program: program, anchor: HostInstant(nanoseconds: moved)), at: instant, note: "remap"),
                                     program: program)
                    }
                }
            }
        }
        let tenth = Int64(m.clock.session.elapsed(at: instant) / .milliseconds(100))
        if let last = m.lastTenth {
            if tenth < last { m.repeated.append((trueNow, last, tenth)) }
            if tenth > last + 1 { m.jumps.append((trueNow, last, tenth)) }
        }
        m.lastTenth = tenth
    }

    private mutating func collect(_ i: Int, _ out: [Occurrence<HostInstant>]) { Self.collect(&members[i], out, program: program) }

    private static func collect(_ m: inout Member, _ out: [Occurrence<HostInstant>], program: Program) {
        for occurrence in out {
            switch occurrence {
            case .signal(let signal, let at):
                // The program's signal point this is: the nearest of its kind to where it rang.
                let offset = m.clock.session.elapsed(at: at)
                let index = program.signals.indices.filter { program.signals[$0].signal == signal }
                    .min { abs((program.signals[$0].offset - offset) / .nanoseconds(1)) < abs((program.signals[$1].offset - offset) / .nanoseconds(1)) }
                m.rung.append(index ?? -1)
            case .action(.adopt(let note), _): m.notes.append(note)
            case .action: break
            }
        }
    }

    /// What went wrong on member `i`: tenths shown twice, bells rung twice, bells passed
    /// without ringing and unnamed, forward jumps without a step.
    func problems(_ i: Int) -> [String] {
        let m = members[i]
        var problems = m.repeated.map { "tenth \($0.from) shown, then \($0.to), at \($0.at) ns" }
        var seen = Set<Int>()
        for index in m.rung where !seen.insert(index).inserted { problems.append("bell \(index) rang twice") }
        let now = HostInstant(nanoseconds: time.hosts[i].local(time.now))
        let elapsed = m.clock.session.elapsed(at: now)
        let named = m.notes.joined(separator: "\n")
        for (index, point) in program.signals.enumerated() where point.offset < elapsed - .milliseconds(100) && !seen.contains(index) {
            let text = "\(point.signal.rawValue) at \(Self.text(point.offset))"
            if !named.contains(text) { problems.append("bell \(index) (\(text)) passed unnamed") }
        }
        for jump in m.jumps where !m.steps.contains(where: { abs($0 - jump.at) <= 10_000_000 }) {
            problems.append("tenths \(jump.from) → \(jump.to) at \(jump.at) ns with no step")
        }
        return problems
    }

    static func text(_ offset: Duration) -> String {
        let tenths = offset / .milliseconds(100)
        let seconds = Int64(tenths) / 10
        return "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60).\(Int64(tenths) % 10)"
    }
}
