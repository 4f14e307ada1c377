import GroupSync
import TestSupport
import Testing

/// What a stranger on the broker, a lost connection or a restart does to the group's time
/// (docs/sync.md "Group time"): crafted answers to real asks, a reference that left while a
/// member was away, a broker restart, a gateway restart, slow links. Seeded; the seed is
/// printed (`GROUPTIME_SEED=N` replays it).
@Suite struct GroupTimeRobustnessTests {
    static let second: Int64 = 1_000_000_000
    static let three: [(id: String, offset: Int64, drift: Double, wall: Int64)] = [
        ("member-0", 3 * second, -50e-6, -3 * second), ("member-1", -8 * second, 0, 0), ("member-2", 120 * second, 50e-6, 7 * second),
    ]

    /// A member following `reference`, with ask 1 outstanding (sent at local 0).
    static func follower(of reference: String = "a") -> GroupClock {
        var clock = GroupClock(member: "b")
        _ = clock.handle(.connected)
        _ = clock.handle(.presence(member: reference, GroupPresence(role: .reference, synced: true), .init(local: 0, realtime: 0)))
        _ = clock.handle(.settled(.init(local: 0, realtime: 0)))
        return clock
    }

    @Test func theCrashingAnswerIsRefusedByTheParserAndHarmlessPastIt() throws {
        let payload = #"{"answer": 1, "reference": "a", "received_ns": 9223372036854775807, "sent_ns": 0}"#
        #expect(throws: GroupSyncProblem.self) { try GroupTimeMessage.parse(Array(payload.utf8)) }
        let refusals = [
            (#"{"answer": 1, "reference": "a", "received_ns": 5, "sent_ns": 4}"#, "\"sent_ns\" precedes \"received_ns\""),
            (#"{"answer": 1, "reference": "a", "received_ns": 5, "sent_ns": 1000000006}"#, "more than 1000 ms after"),
            (#"{"answer": 1, "reference": "a", "received_ns": 4000000000000000001, "sent_ns": 4000000000000000001}"#, "from 0 to 4000000000000000000"),
        ]
        for (text, why) in refusals {
            do {
                _ = try GroupTimeMessage.parse(Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.description.contains(why), "\(text): \(error)")
            }
        }
        #expect(throws: GroupSyncProblem.self) {
            try GroupMessage.parse(#"{"version": 1, "member": "a", "program": "boxing", "run": "running", "elapsed_before_ns": 0, "anchor_realtime_ns": 9223372036854775807, "issued_realtime_ns": 0}"#)
        }
        // Past the parser, straight into a member answering its real ask: no trap, no sample.
        var clock = Self.follower()
        let extremes: [Int64] = [.max, .min, 0, -1, 1, GroupInstant.maximum, GroupInstant.maximum + 1, 1 << 62, -(1 << 62)]
        var sequence: Int64 = 1
        for received in extremes {
            for sent in extremes {
                for local in [0, 1, GroupInstant.maximum, Int64.max] {
                    _ = clock.handle(.answer(sequence: sequence, reference: "a", referenceReceived: received, referenceSent: sent, received: local))
                    _ = clock.handle(.tick(.init(local: local, realtime: local)))
                    sequence += 1
                }
            }
        }
        #expect(clock.estimator.samples.allSatisfy { $0.isPlausible })
        let fit = GroupTimeFit(origin: .max, offset: .min, frequency: 500e-6, error: .max)
        for local in extremes {
            _ = (fit.groupTime(atLocal: local), fit.local(atGroupTime: local))
            _ = (clock.groupTime(atLocal: local), clock.local(atGroupTime: local))
        }
    }

    @Test func aSecondAnswerThatDisagreesDiscardsBoth() {
        var clock = Self.follower()
        let group: Int64 = 1_795_000_000_000_000_000
        // Ask 1 went out at local 0; the reference's answer, then a forger's 3 s off.
        _ = clock.handle(.answer(sequence: 1, reference: "a", referenceReceived: group + 3_000_000, referenceSent: group + 3_000_000, received: 6_000_000))
        let effects = clock.handle(.answer(sequence: 1, reference: "a", referenceReceived: group + 3_000_000_000,
                                           referenceSent: group + 3_000_000_000, received: 7_000_000))
        #expect(effects.contains(.conflictingAnswers(count: 1)))
        _ = clock.handle(.tick(.init(local: 300_000_000, realtime: 0)))
        #expect(clock.estimator.samples.isEmpty)
        // The same answer twice (a duplicate delivery) is no conflict; alone, it is used.
        var other = Self.follower()
        for _ in 0..<2 {
            _ = other.handle(.answer(sequence: 1, reference: "a", referenceReceived: group + 3_000_000, referenceSent: group + 3_000_000, received: 6_000_000))
        }
        #expect(!other.handle(.tick(.init(local: 300_000_000, realtime: 0))).contains { if case .conflictingAnswers = $0 { true } else { false } })
        #expect(other.estimator.samples.count == 1)
    }

    @Test func craftedAnswersToRealAsksNeitherCrashNorMoveTheGroup() {
        let seed = GroupTimeTests.seed("forged")
        var simulation = GroupTimeSimulation(seed: seed, hosts: Self.three, hop: 2_000_000...8_000_000)
        simulation.forgeRate = 40
        simulation.start()
        var spreads: [Int64] = []
        simulation.run(until: 300 * Self.second) { simulation in
            guard simulation.now >= 60 * Self.second else { return }
            let times = simulation.groupTimes()
            if times.count == 3 { spreads.append(times.max()! - times.min()!) }
        }
        let conflicts = simulation.hosts.flatMap(\.logs).reduce(0) { if case .conflictingAnswers(let n) = $1 { $0 + n } else { $0 } }
        let p99 = GroupTimeTests.percentile(spreads, 0.99)
        print("GroupTimeRobustnessTests seed \(seed): \(simulation.forgedSent) forged answers, \(simulation.forgedRefused) refused by the parser, "
              + "\(conflicts) conflicts reported; spread 60-300 s p99 \(p99) ns, max \(spreads.max() ?? -1) ns")
        #expect(simulation.forgedSent > 500 && simulation.forgedRefused > 100 && conflicts > 0, "seed \(seed)")
        #expect(simulation.hosts.allSatisfy { $0.clock.status.isSynced }, "seed \(seed): \(simulation.hosts.map(\.clock.status))")
        #expect(spreads.count > 2_000 && p99 <= 3_000_000, "seed \(seed): spread p99 \(p99) ns")
    }

    @Test func aMemberAwayWhileTheReferenceLeftFollowsTheNewOneOnReturn() {
        let seed = GroupTimeTests.seed("away")
        var simulation = GroupTimeSimulation(seed: seed, hosts: Self.three, hop: 2_000_000...8_000_000)
        simulation.start()
        simulation.run(until: 30 * Self.second)
        simulation.cutOff(2)
        simulation.run(until: 32 * Self.second)
        simulation.leave(0)  // its will empties its presence while member-2 is away
        simulation.run(until: 50 * Self.second)
        #expect(simulation.hosts[1].clock.status == .reference, "seed \(seed)")
        simulation.connect(2)
        simulation.run(until: 55 * Self.second)
        #expect(simulation.hosts[2].clock.reference == "member-1", "seed \(seed): \(simulation.hosts[2].clock.status)")
        #expect(simulation.hosts[2].clock.status.isSynced, "seed \(seed): \(simulation.hosts[2].clock.status)")
    }

    @Test func aBrokerRestartForgetsAReferenceThatStoppedMeanwhile() {
        let seed = GroupTimeTests.seed("brokerRestart")
        var simulation = GroupTimeSimulation(seed: seed, hosts: Self.three, hop: 2_000_000...8_000_000)
        simulation.start()
        simulation.run(until: 30 * Self.second)
        let before = simulation.groupTimes()
        simulation.restartBroker(0, reconnect: Self.second...3 * Self.second, stopping: [0])
        simulation.run(until: 38 * Self.second)
        // One of the two takes the role (the first back, or the lower id), the other follows it.
        let roles = [simulation.hosts[1].clock.status, simulation.hosts[2].clock.status]
        #expect(roles.filter { $0 == .reference }.count == 1 && roles.allSatisfy(\.isSynced), "seed \(seed): \(roles)")
        #expect(simulation.hosts[1...2].allSatisfy { $0.clock.reference != "member-0" }, "seed \(seed): \(roles)")
        // Group time went on across it.
        let after = simulation.groupTimes()
        #expect(after.count == 2 && abs(after[0] - before[1] - 8 * Self.second) < 5_000_000, "seed \(seed)")
    }

    @Test func aReferenceGatewayRestartingKeepsTheGroupAndItsPresence() {
        let seed = GroupTimeTests.seed("gatewayRestart")
        var simulation = GroupTimeSimulation(seed: seed, hosts: Self.three, hop: 2_000_000...8_000_000)
        simulation.start()
        simulation.run(until: 30 * Self.second)
        simulation.crashGateway(0, restartAfter: 2 * Self.second)
        simulation.run(until: 40 * Self.second)
        // Its new run says it is a member at once: member-1 takes the role, everyone follows.
        #expect(simulation.hosts[1].clock.status == .reference, "seed \(seed): \(simulation.hosts[1].clock.status)")
        #expect(simulation.hosts[0].clock.reference == "member-1" && simulation.hosts[2].clock.reference == "member-1", "seed \(seed)")
        // The old connection's will fired at 37.5 s, after the new run's presence: the broker
        // holds member-0's latest state again.
        #expect(simulation.retained[0]?["member-0"] == GroupPresence(role: .member, synced: simulation.hosts[0].clock.status.isSynced),
                "seed \(seed): \(String(describing: simulation.retained[0]?["member-0"]))")
        #expect(simulation.hosts.allSatisfy { $0.clock.status.isSynced }, "seed \(seed): \(simulation.hosts.map(\.clock.status))")
    }

    @Test func onSlowLinksTheStatusDoesNotFlap() {
        let seed = GroupTimeTests.seed("slowLinks")
        // 20 ± 15 ms a hop: round trips of 20 to 140 ms.
        var simulation = GroupTimeSimulation(seed: seed, hosts: Self.three, hop: 5_000_000...35_000_000)
        simulation.start()
        simulation.run(until: 600 * Self.second)
        for host in simulation.hosts.dropFirst() {
            let changes = host.logs.compactMap { if case .log(let status) = $0 { status } else { nil } }
            print("GroupTimeRobustnessTests seed \(seed): \(host.clock.member) status changes \(changes.map(\.description))")
            #expect(changes.count <= 3, "seed \(seed): \(host.clock.member): \(changes.map(\.description))")
        }
    }

    @Test func theRemapArithmetic() {
        // Within 1 ms: nothing; then 10 ms at a time either way; more than 1 s behind: a step.
        #expect(SessionRemap.move(held: 5_000_000_000, target: 5_001_000_000) == nil)
        #expect(SessionRemap.move(held: 5_000_000_000, target: 5_001_000_001) == .slew(by: 1_000_001))
        #expect(SessionRemap.move(held: 5_000_000_000, target: 7_000_000_000) == .slew(by: 10_000_000))
        #expect(SessionRemap.move(held: 5_000_000_000, target: 4_000_000_000) == .slew(by: -10_000_000))
        #expect(SessionRemap.move(held: 5_000_000_000, target: 3_000_000_000) == .step(by: -2_000_000_000))
        #expect(SessionRemap.move(held: .max, target: .min) == .step(by: .min))
        // The safe instant: 30-70 ms into a tenth of the running time, not in the first 2 s.
        #expect(SessionRemap.wait(elapsedBefore: 0, held: 0, now: 1_999_999_999) == nil)
        #expect(SessionRemap.wait(elapsedBefore: 0, held: 0, now: 2_050_000_000) == 0)
        #expect(SessionRemap.wait(elapsedBefore: 0, held: 0, now: 2_000_000_000) == 50_000_000)
        #expect(SessionRemap.wait(elapsedBefore: 30_000_000, held: 0, now: 2_050_000_000) == 70_000_000)
        #expect(SessionRemap.wait(elapsedBefore: 0, held: 0, now: 2_090_000_000) == 60_000_000)
        // Extremes saturate rather than trap.
        #expect(SessionRemap.wait(elapsedBefore: 3_162_240_000_000_000_000, held: .min, now: .max).map { (0..<100_000_000).contains($0) } == true)
    }
}
