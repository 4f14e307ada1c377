import GroupSync
import Testing

/// Presences that no gateway stands behind (a client of the broker can leave any retained
/// presence): a reference that never answers and a member with a lower id that never takes
/// the role. Neither keeps a member from the group's time for good.
@Suite struct GroupGhostTests {
    static let second: Int64 = 1_000_000_000

    /// Ticks every 100 ms from local `from` to `to`; returns the clock's effects.
    static func run(_ clock: inout GroupClock, from: Int64, to: Int64) -> [GroupClock.Effect] {
        var effects: [GroupClock.Effect] = []
        for local in stride(from: from, through: to, by: 100_000_000) {
            effects += clock.handle(.tick(.init(local: local, realtime: 1_795_000_000 * second + local)))
        }
        return effects
    }

    /// `member-1`, connected at local 0 to a broker that holds `presences`, and settled.
    static func settled(with presences: [(String, GroupPresence)]) -> GroupClock {
        var clock = GroupClock(member: "member-1")
        let start = GroupClock.Readings(local: 0, realtime: 1_795_000_000 * second)
        _ = clock.handle(.connected)
        for (member, presence) in presences { _ = clock.handle(.presence(member: member, presence, start)) }
        _ = clock.handle(.settled(start))
        return clock
    }

    @Test func aGhostReferenceAndALowIdThatNeverTakesTheRoleArePassedOver() {
        var clock = Self.settled(with: [("a-ghost", GroupPresence(role: .reference, synced: true)),
                                        ("a-idle", GroupPresence(role: .member, synced: false))])
        #expect(clock.reference == "a-ghost")
        // The ghost never answers: gone after `silenceLimit`; `a-idle` is chosen and never
        // takes the role: passed over after as long again, and this member takes it.
        let effects = Self.run(&clock, from: 0, to: 3 * GroupClock.silenceLimit)
        #expect(effects.contains(.silentReference("a-ghost")))
        #expect(clock.status == .reference, "\(clock.status)")
        #expect(effects.contains(.presence(GroupPresence(role: .reference, synced: true))))
    }

    @Test func aLowerIdThatTakesTheRoleInTimeIsFollowed() {
        var clock = Self.settled(with: [("member-0", GroupPresence(role: .member, synced: false))])
        _ = Self.run(&clock, from: 0, to: GroupClock.silenceLimit - Self.second)
        #expect(clock.status != .reference && clock.reference == nil, "\(clock.status)")
        let now = GroupClock.Readings(local: GroupClock.silenceLimit - Self.second / 2, realtime: 0)
        _ = clock.handle(.presence(member: "member-0", GroupPresence(role: .reference, synced: true), now))
        _ = Self.run(&clock, from: GroupClock.silenceLimit, to: GroupClock.silenceLimit + 5 * Self.second)
        #expect(clock.reference == "member-0", "\(clock.status)")
    }

    @Test func aPassedOverMemberCountsAgainOnceItsPresenceChanges() {
        var clock = Self.settled(with: [("a-idle", GroupPresence(role: .member, synced: false))])
        _ = Self.run(&clock, from: 0, to: 2 * GroupClock.silenceLimit)
        #expect(clock.status == .reference, "\(clock.status)")
        // `a-idle` comes to life as a reference: the lower id, so it is followed.
        let now = GroupClock.Readings(local: 2 * GroupClock.silenceLimit + 1, realtime: 0)
        _ = clock.handle(.presence(member: "a-idle", GroupPresence(role: .reference, synced: true), now))
        #expect(clock.reference == "a-idle", "\(clock.status)")
    }
}
