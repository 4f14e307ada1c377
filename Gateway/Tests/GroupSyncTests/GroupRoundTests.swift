import GroupSync
import RoundClockCore
import Testing

/// Whatever the group's time does (docs/sync.md "Drift"), every member's panels go forward,
/// no bell rings twice and none passes unnamed: a handover, a reference whose time steps
/// ±2 s, two groups merging, each with the members' real `Controller`s running boxing
/// (bells every few seconds around each minute) and read every 5 ms.
@Suite struct GroupRoundTests {
    static let second: Int64 = 1_000_000_000

    static func group(_ name: String, hosts: [(id: String, offset: Int64, drift: Double, wall: Int64)]) throws -> GroupRoundSimulation {
        let seed = GroupTimeTests.seed(name)
        var time = GroupTimeSimulation(seed: seed, hosts: hosts, hop: 2_000_000...8_000_000)
        time.start()
        return GroupRoundSimulation(time: time, program: try ProgramSpec.parse("boxing"))
    }

    static func expectClean(_ round: GroupRoundSimulation, _ members: Range<Int>, _ what: String) {
        for i in members {
            let problems = round.problems(i)
            #expect(problems.isEmpty, "\(what): \(round.time.hosts[i].clock.member): \(problems.prefix(5))")
            #expect(round.members[i].rung.count >= 2, "\(what): \(round.time.hosts[i].clock.member) rang \(round.members[i].rung)")
        }
    }

    static let three: [(id: String, offset: Int64, drift: Double, wall: Int64)] = [
        ("member-0", 3 * second, -50e-6, -3 * second), ("member-1", -8 * second, 0, 0), ("member-2", 120 * second, 50e-6, 7 * second),
    ]

    @Test func aHandoverMovesNoMembersPanelsBack() throws {
        var round = try Self.group("handover", hosts: Self.three)
        round.time.run(until: 30 * Self.second)
        round.start(broker: 0)
        round.run(until: 120 * Self.second)
        round.time.leave(0)
        round.run(until: 240 * Self.second)
        #expect(round.time.hosts[1].clock.status == .reference)
        Self.expectClean(round, 1..<3, "handover")
    }

    @Test func aReferenceWhoseTimeStepsTwoSecondsEachWay() throws {
        var round = try Self.group("step", hosts: Self.three)
        round.time.run(until: 30 * Self.second)
        round.start(broker: 0)
        // 2 s into the round the reference's answers jump 2 s ahead: a few seconds later (four
        // outliers, then 16 round trips) the followers' rounds step 2 s forward, in the prep's
        // last seconds, naming the bells they pass.
        round.run(until: 32 * Self.second)
        round.time.hosts[0].answerSkew = 2 * Self.second
        round.run(until: 100 * Self.second)
        for i in 1..<3 {
            let m = round.members[i]
            print("GroupRoundTests.step: member-\(i) stepped at \(m.steps) ns; jumps \(m.jumps.map { "\($0.from)→\($0.to)" }); notes \(m.notes)")
            #expect(m.steps.count == 1 && m.jumps.count == 1 && (19...21).contains(m.jumps[0].to - m.jumps[0].from), "member-\(i)")
            #expect(m.notes.contains { $0.hasPrefix("remap; passed without ringing: ") }, "member-\(i): \(m.notes)")
        }
        Self.expectClean(round, 0..<3, "+2 s")
        // And back: the followers are 2 s ahead of the group; they are slewed back, 10 ms a
        // second, never a tenth shown twice.
        round.time.hosts[0].answerSkew = 0
        round.run(until: 200 * Self.second)
        for i in 1..<3 {
            #expect(round.members[i].slews >= 80, "member-\(i): \(round.members[i].slews) slews")
            #expect(round.members[i].steps.count == 1)
        }
        Self.expectClean(round, 0..<3, "-2 s")
    }

    @Test(arguments: [-3, 3]) func twoGroupsMerging(aheadSeconds: Int64) throws {
        // Group b's time (b-0's wall clock) is `aheadSeconds` ahead of group a's.
        var round = try Self.group("merge\(aheadSeconds)", hosts: [
            ("a-0", 5 * Self.second, 20e-6, 1_000 * Self.second), ("a-1", 9 * Self.second, -20e-6, 0),
            ("b-0", 2 * Self.second, 0, (1_003 + aheadSeconds) * Self.second), ("b-1", 40 * Self.second, 30e-6, 0),
        ])
        round.time.move(2, to: 1)
        round.time.move(3, to: 1)
        round.time.run(until: 30 * Self.second)
        #expect(round.time.hosts[0].clock.status == .reference && round.time.hosts[2].clock.status == .reference)
        round.start(broker: 0)
        round.start(broker: 1)
        round.run(until: 60 * Self.second)
        // b's members join a's broker: b-0 follows a-0; both keep their round on their panels.
        round.time.move(2, to: 0)
        round.time.move(3, to: 0)
        round.run(until: 180 * Self.second)
        #expect(round.time.hosts[2].clock.reference == "a-0" && round.time.hosts[3].clock.reference == "a-0")
        Self.expectClean(round, 0..<4, "merge, b \(aheadSeconds) s ahead")
    }
}
