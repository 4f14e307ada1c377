import ControlProtocol
import GroupSync
import TestSupport

/// A group of members with simulated clocks and a simulated broker, driven in a random but
/// seeded order: messages delivered late and interleaved, clocks slow to adopt, members
/// cut off (losing what was sent meanwhile: a clean MQTT session), the broker restarted
/// without persistence (its retained message lost), clocks and gateways restarted.
struct GroupSimulation {
    /// One member: its state machine, its clock, its inbox from the broker.
    struct Node {
        var machine: GroupMember
        var clock: ClockSession
        /// `adopt`s sent to the clock, not yet carried out.
        var clockInbox: [AdoptCommand] = []
        /// Payloads the broker sent, not yet delivered.
        var inbox: [[UInt8]] = []
        var connected = false
        var settled = false
        var tokenBase: Int64
    }

    var rng: SplitMix64
    var nodes: [Node] = []
    var retained: [UInt8]?
    /// Every message the broker accepted.
    var published: [GroupMessage] = []
    var now: Int64 = 1_795_412_345_678_901_234
    var logs: [GroupLog] = []
    /// What happened, one line per input and effect, to print when a run fails.
    var trace: [String] = []
    /// Whether a step may restart a member's gateway (which forgets what it held).
    var gatewayRestarts: Bool

    static let programs = ["boxing", "tabata", "countdown:5:00", "6 x 2:00/0:30, prep 0:10"]

    init(seed: UInt64, members: [String], gatewayRestarts: Bool = true) {
        rng = SplitMix64(seed: seed)
        self.gatewayRestarts = gatewayRestarts
        for (index, id) in members.enumerated() {
            let base = Int64(index) * 1_000_000 + 1
            nodes.append(Node(machine: GroupMember(member: id, firstToken: base), clock: ClockSession(session: randomSession(), adopted: nil),
                              tokenBase: base))
        }
    }

    mutating func randomSession() -> SessionShare {
        let run = rng.pick(SessionShare.Run.allCases)
        return SessionShare(program: rng.pick(Self.programs), run: run,
                             elapsedBeforeNanoseconds: run == .ready ? 0 : 1 + Int64(rng.next() % 600_000_000_000),
                             anchorRealtimeNanoseconds: run == .running ? now - Int64(rng.next() % 60_000_000_000) : nil)
    }

    mutating func feed(_ index: Int, _ input: GroupMember.Input) {
        let name = nodes[index].machine.member
        switch input {
        case .received(let payload): trace.append("\(name) <- \(String(decoding: payload, as: UTF8.self))")
        case .clock(let line, _): trace.append("\(name) clock \(line)")
        default: trace.append("\(name) \(input)")
        }
        for effect in nodes[index].machine.handle(input) {
            trace.append("\(name) -> \(effect)")
            switch effect {
            case .adopt(let command): nodes[index].clockInbox.append(command)
            case .publish(let message):
                // QoS 1 over a live connection; a machine publishes only while connected.
                guard nodes[index].connected else { preconditionFailure("published while disconnected") }
                brokerReceives(Array(message.payload.utf8))
            case .log(let line): logs.append(line)
            }
        }
    }

    mutating func brokerReceives(_ payload: [UInt8]) {
        retained = payload
        if let message = try? GroupMessage.parse(payload) { published.append(message) }
        for i in nodes.indices where nodes[i].connected { nodes[i].inbox.append(payload) }
    }

    /// The clock's state line after a change (its session and the adopt token, if any).
    mutating func clockLine(_ index: Int) {
        now += Int64(rng.next() % 5_000_000)
        feed(index, .clock(nodes[index].clock, realtimeNanoseconds: now))
    }

    /// One random step; `quiet` leaves out the disturbances (changes, losses, restarts).
    mutating func step(quiet: Bool) {
        let i = Int(rng.next() % UInt64(nodes.count))
        let roll = rng.next() % 100
        switch roll {
        case 0..<35 where !nodes[i].inbox.isEmpty:
            feed(i, .received(nodes[i].inbox.removeFirst()))
        case 35..<55 where !nodes[i].clockInbox.isEmpty:
            let command = nodes[i].clockInbox.removeFirst()
            nodes[i].clock = ClockSession(session: command.session, adopted: command.token)
            clockLine(i)
        case 55..<65 where nodes[i].connected && !nodes[i].settled:
            nodes[i].settled = true
            feed(i, .settled)
        case 65..<75 where !nodes[i].connected:
            connect(i)
        case 75..<85 where !quiet:  // a button, a remote command, a class start
            nodes[i].clock = ClockSession(session: randomSession(), adopted: nil)
            clockLine(i)
        case 85..<88 where !quiet && nodes[i].connected:  // cut off: what was on its way is lost
            nodes[i].connected = false
            nodes[i].settled = false
            nodes[i].inbox = []
            feed(i, .disconnected)
        case 88..<90 where !quiet:  // the clock restarts: pending adopts lost; maybe its state file too
            nodes[i].clockInbox = []
            feed(i, .clockLost)
            if rng.chance(30) { nodes[i].clock = ClockSession(session: randomSession(), adopted: nil) }
            clockLine(i)
        case 90..<91 where !quiet && gatewayRestarts:  // the gateway restarts: a new machine, counting from 0
            nodes[i].tokenBase += 100_000
            nodes[i].machine = GroupMember(member: nodes[i].machine.member, firstToken: nodes[i].tokenBase)
            nodes[i].clockInbox = []
            if nodes[i].connected { nodes[i].connected = false; nodes[i].inbox = [] }
            nodes[i].settled = false
            clockLine(i)
        case 91..<92 where !quiet:  // the broker restarts without persistence
            retained = nil
            for j in nodes.indices where nodes[j].connected {
                nodes[j].connected = false
                nodes[j].settled = false
                nodes[j].inbox = []
                feed(j, .disconnected)
            }
        default:
            break
        }
    }

    /// Every clock's first state line.
    mutating func start() {
        for i in nodes.indices { clockLine(i) }
    }

    /// Steps without disturbances until every member is connected, settled and idle; false
    /// if that takes more than `limit` steps (a livelock).
    mutating func quiesce(limit: Int = 200_000) -> Bool {
        for _ in 0..<limit {
            if isQuiet { return true }
            step(quiet: true)
        }
        return isQuiet
    }

    mutating func connect(_ i: Int) {
        nodes[i].connected = true
        nodes[i].settled = false
        nodes[i].inbox = retained.map { [$0] } ?? []
        feed(i, .connected)
    }

    var isQuiet: Bool {
        nodes.allSatisfy { $0.connected && $0.settled && $0.inbox.isEmpty && $0.clockInbox.isEmpty }
    }
}
