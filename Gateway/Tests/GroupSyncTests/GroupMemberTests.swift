import ControlProtocol
import GroupSync
import Testing

/// The member's rules one at a time (docs/sync.md).
@Suite struct GroupMemberTests {
    static let t0: Int64 = 1_795_412_345_000_000_000
    static let ready = SessionShare(program: "boxing", run: .ready, elapsedBeforeNanoseconds: 0, anchorRealtimeNanoseconds: nil)
    static let running = SessionShare(program: "boxing", run: .running, elapsedBeforeNanoseconds: 0, anchorRealtimeNanoseconds: t0)
    static let paused = SessionShare(program: "boxing", run: .paused, elapsedBeforeNanoseconds: 42_000_000_000, anchorRealtimeNanoseconds: nil)
    static let tabata = SessionShare(program: "tabata", run: .ready, elapsedBeforeNanoseconds: 0, anchorRealtimeNanoseconds: nil)

    static func message(_ version: Int64, _ member: String, _ session: SessionShare) -> GroupMessage {
        GroupMessage(version: version, member: member, session: session, issuedRealtimeNanoseconds: t0)
    }

    static func bytes(_ message: GroupMessage) -> [UInt8] { Array(message.payload.utf8) }

    /// A member "me" whose clock is ready, connected and settled, holding `held`.
    static func member(holding held: GroupMessage) -> GroupMember {
        var member = GroupMember(member: "me", firstToken: 100)
        _ = member.handle(.clock(ClockSession(session: held.session, adopted: nil), realtimeNanoseconds: t0))
        _ = member.handle(.connected)
        _ = member.handle(.received(bytes(held)))
        _ = member.handle(.settled)
        return member
    }

    static func published(_ effects: [GroupMember.Effect]) -> [GroupMessage] {
        effects.compactMap { if case .publish(let m) = $0 { m } else { nil } }
    }

    static func adopts(_ effects: [GroupMember.Effect]) -> [AdoptCommand] {
        effects.compactMap { if case .adopt(let c) = $0 { c } else { nil } }
    }

    @Test func aLocalChangePublishesTheNextVersionFromThisMember() {
        var member = Self.member(holding: Self.message(5, "other", Self.ready))
        let effects = member.handle(.clock(ClockSession(session: Self.running, adopted: nil), realtimeNanoseconds: Self.t0 + 7))
        let expected = GroupMessage(version: 6, member: "me", session: Self.running, issuedRealtimeNanoseconds: Self.t0 + 7)
        #expect(effects == [.publish(expected), .log(.published(expected, .localChange))])
        #expect(effects.last.map { "\($0)" }?.contains("local change published: version 6 from me (running boxing)") == true)
        // The next state lines of the same session (each displayed second) publish nothing.
        let step1 = member.handle(.clock(ClockSession(session: Self.running, adopted: nil), realtimeNanoseconds: Self.t0 + 9))
        #expect(step1 == [])
    }

    @Test func higherIsAdoptedLowerIsStaleAndRepublishedEqualIsIgnored() {
        var member = Self.member(holding: Self.message(5, "m", Self.ready))
        let higher = Self.message(5, "n", Self.running)  // same version, higher member id
        let effects = member.handle(.received(Self.bytes(higher)))
        #expect(effects == [.log(.adopted(higher)), .adopt(AdoptCommand(token: 100, session: Self.running))])
        #expect(member.current == higher)
        let step2 = member.handle(.received(Self.bytes(higher)))
        #expect(step2 == [])
        let lower = Self.message(4, "z", Self.paused)
        let step3 = member.handle(.received(Self.bytes(lower)))
        #expect(step3 == [.log(.stale(lower, current: higher)), .publish(higher), .log(.published(higher, .republished))])
        #expect(member.current == higher)
    }

    @Test func aRemapAdoptsTheRunningSessionAgainAndNothingElse() {
        var member = Self.member(holding: Self.message(5, "other", Self.running))
        let effects = member.handle(.remap)
        #expect(Self.adopts(effects).map(\.session) == [Self.running])
        #expect(Self.published(effects).isEmpty)
        // Its echo (the anchor as the clock mapped it) is no change, and a remap still works.
        var shown = Self.running
        shown.anchorRealtimeNanoseconds = Self.t0 + 3_000
        let token = Self.adopts(effects)[0].token
        #expect(member.handle(.clock(ClockSession(session: shown, adopted: token), realtimeNanoseconds: Self.t0)).isEmpty)
        #expect(Self.adopts(member.handle(.remap)).map(\.session) == [Self.running])
        // Paused or ready: nothing to map; without a clock line, nothing to map onto.
        var paused = Self.member(holding: Self.message(5, "other", Self.paused))
        #expect(paused.handle(.remap).isEmpty)
        _ = member.handle(.clockLost)
        #expect(member.handle(.remap).isEmpty)
    }

    @Test func theEchoOfAnAdoptIsNotALocalChange() {
        var member = Self.member(holding: Self.message(5, "m", Self.ready))
        let adopted = Self.message(6, "n", Self.running)
        let adopt = Self.adopts(member.handle(.received(Self.bytes(adopted))))
        #expect(adopt.count == 1)
        let step4 = member.handle(.clock(ClockSession(session: Self.running, adopted: adopt.first?.token), realtimeNanoseconds: Self.t0))
        #expect(step4 == [])
    }

    /// The clock adjusted the adopted session (it clamps a total over the maximum): accepted
    /// as it is, not adopted again and again.
    @Test func aSessionTheClockAdjustedOnAdoptIsNotAdoptedAgain() {
        var member = Self.member(holding: Self.message(5, "m", Self.ready))
        let adopt = Self.adopts(member.handle(.received(Self.bytes(Self.message(6, "n", Self.running)))))
        let step5 = member.handle(.clock(ClockSession(session: Self.paused, adopted: adopt.first?.token), realtimeNanoseconds: Self.t0))
        #expect(step5 == [])
    }

    /// A button pressed while an adopt is on its way: the press is published (version + 1),
    /// and when the older adopt lands after it the clock is given the press's session back.
    @Test func aPressWhileAnAdoptIsOnItsWayWins() {
        var member = Self.member(holding: Self.message(5, "m", Self.ready))
        let adopt = Self.adopts(member.handle(.received(Self.bytes(Self.message(6, "n", Self.running)))))
        let press = member.handle(.clock(ClockSession(session: Self.tabata, adopted: nil), realtimeNanoseconds: Self.t0))
        #expect(Self.published(press).map(\.version) == [7])
        let echo = member.handle(.clock(ClockSession(session: Self.running, adopted: adopt.first?.token), realtimeNanoseconds: Self.t0))
        #expect(Self.adopts(echo).map(\.session) == [Self.tabata])
    }

    @Test func aChangeWhileDisconnectedIsPublishedOnReconnectIfStillHigher() {
        var member = Self.member(holding: Self.message(5, "m", Self.ready))
        _ = member.handle(.disconnected)
        let kept = member.handle(.clock(ClockSession(session: Self.running, adopted: nil), realtimeNanoseconds: Self.t0))
        let change = Self.message(6, "me", Self.running)
        #expect(kept == [.log(.keptWhileAway(change))])
        _ = member.handle(.connected)
        // The broker still holds version 5: stale, and the change goes out.
        let step6 = member.handle(.received(Self.bytes(Self.message(5, "m", Self.ready))))
        #expect(Self.published(step6) == [change])
        let step7 = member.handle(.settled)
        #expect(step7 == [])

        var other = Self.member(holding: Self.message(5, "m", Self.ready))
        _ = other.handle(.disconnected)
        _ = other.handle(.clock(ClockSession(session: Self.running, adopted: nil), realtimeNanoseconds: Self.t0))
        _ = other.handle(.connected)
        let step8 = other.handle(.settled)
        #expect(step8 == [.publish(change), .log(.published(change, .keptWhileAway))], "the broker held nothing")
    }

    @Test func aChangeWhileDisconnectedIsDroppedWhenTheBrokerHoldsAHigherOne() {
        var member = Self.member(holding: Self.message(5, "m", Self.ready))
        _ = member.handle(.disconnected)
        _ = member.handle(.clock(ClockSession(session: Self.running, adopted: nil), realtimeNanoseconds: Self.t0))
        _ = member.handle(.connected)
        let newer = Self.message(8, "a", Self.tabata)
        let effects = member.handle(.received(Self.bytes(newer)))
        #expect(Self.published(effects) == [] && Self.adopts(effects).map(\.session) == [Self.tabata])
        let step9 = member.handle(.settled)
        #expect(step9 == [])
    }

    @Test func aRestartedClockIsGivenTheGroupSession() {
        var member = Self.member(holding: Self.message(5, "m", Self.running))
        _ = member.handle(.clockLost)
        let effects = member.handle(.clock(ClockSession(session: Self.ready, adopted: nil), realtimeNanoseconds: Self.t0))
        #expect(Self.adopts(effects).map(\.session) == [Self.running] && Self.published(effects) == [])
        _ = member.handle(.clockLost)
        let step10 = member.handle(.clock(ClockSession(session: Self.running, adopted: nil), realtimeNanoseconds: Self.t0))
        #expect(step10 == [],
                "a clock that restored the group's session is left alone")
    }

    /// A member started late adopts the group's session even when its own id is higher and
    /// the group never got past version 0: its clock's own session was only provisional.
    @Test func aLateMemberAdoptsTheGroupSession() {
        var late = GroupMember(member: "zz-late")
        _ = late.handle(.clock(ClockSession(session: Self.ready, adopted: nil), realtimeNanoseconds: Self.t0))
        #expect(late.provisional)
        _ = late.handle(.connected)
        let group = Self.message(0, "aa", Self.running)
        let step11 = late.handle(.received(Self.bytes(group)))
        #expect(Self.adopts(step11).map(\.session) == [Self.running])
        let step12 = late.handle(.settled)
        #expect(step12 == [])
        #expect(late.current == group)
    }

    /// Alone with an empty broker, a member publishes its clock's session (version 0) once
    /// settled, so members joining later find one.
    @Test func anEmptyBrokerGetsThisClocksSession() {
        var first = GroupMember(member: "first")
        _ = first.handle(.connected)
        let step13 = first.handle(.settled)
        #expect(step13 == [], "nothing to publish before the clock said anything")
        let effects = first.handle(.clock(ClockSession(session: Self.ready, adopted: nil), realtimeNanoseconds: Self.t0))
        let mine = GroupMessage(version: 0, member: "first", session: Self.ready, issuedRealtimeNanoseconds: Self.t0)
        #expect(effects == [.publish(mine), .log(.published(mine, .brokerHeldNone))])
    }
}
