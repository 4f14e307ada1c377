import ControlProtocol
import Platform
import RoundClockCore
import Synchronization
import Testing
@testable import RoundClockService

/// The clock's side of `adopt` (docs/control-protocol.md) at exact virtual instants: the
/// mapping onto the loop's clock, the signals an adopted session rings, the checks before
/// anything is posted, and the session as shared.
@Suite struct SessionAdoptionTests {
    typealias Instant = VirtualClock.Instant
    static func at(_ seconds: Double) -> Instant { Instant(offset: .milliseconds(Int64(seconds * 1000))) }
    static func signals(_ out: [Occurrence<Instant>]) -> [String] {
        out.compactMap { if case .signal(let s, let at) = $0 { "\(s.rawValue)@\(at.offset)" } else { nil } }
    }

    /// The adopted anchor on CLOCK_REALTIME `realtimeAnchor` seconds, adopted when the wall clock reads `realtime`, at `now`.
    static func adopted(_ program: Program, elapsed: Duration = .zero, realtimeAnchor: Double?, realtime: Double, now: Instant) -> Session<Instant> {
        SessionAdoption.session(program: program, elapsedBefore: elapsed, anchorRealtime: realtimeAnchor.map { .milliseconds(Int64($0 * 1000)) },
                                realtime: .milliseconds(Int64(realtime * 1000)), now: now)
    }

    @Test func theAnchorIsMappedOnceOntoTheLoopClock() throws {
        let boxing = try ProgramSpec.parse("boxing")
        let session = Self.adopted(boxing, realtimeAnchor: 1_000, realtime: 1_002.5, now: Self.at(50))
        #expect(session.anchor == Self.at(47.5) && session.elapsedBefore == .zero)
        // An anchor ahead of the wall clock (a group start scheduled a little ahead) stays ahead.
        #expect(Self.adopted(boxing, realtimeAnchor: 1_003, realtime: 1_002.5, now: Self.at(50)).anchor == Self.at(50.5))
        let paused = Self.adopted(boxing, elapsed: .seconds(61), realtimeAnchor: nil, realtime: 1_002.5, now: Self.at(50))
        #expect(paused.anchor == nil && paused.elapsedBefore == .seconds(61))
        // Clamped like ResumeDecision: the total never passes TimeLimits.maximumElapsed.
        let stopwatch = try ProgramSpec.parse("stopwatch")
        let longest = Self.adopted(stopwatch, elapsed: TimeLimits.maximumElapsed, realtimeAnchor: 0, realtime: 1_800_000_000, now: Self.at(50))
        #expect(longest.elapsed(at: Self.at(50)) == TimeLimits.maximumElapsed)
    }

    @Test func aGroupSkipRingsTheStartBellOnEveryMemberButNotOnALateOne() throws {
        let boxing = try ProgramSpec.parse("boxing")
        var originator = Controller<Instant>(program: boxing)
        _ = originator.perform(.start, at: Self.at(100))
        let skipped = originator.perform(.skip, at: Self.at(103))  // prep → work: the start bell
        #expect(Self.signals(skipped) == ["start@103.0 seconds"])
        // A member 0.4 s later rings it too (late by that much); a member 2 s later does not.
        var member = Controller<Instant>(program: boxing)
        let adoptedSession = Self.adopted(boxing, elapsed: .seconds(10), realtimeAnchor: 5_003, realtime: 5_003.4, now: Self.at(203.4))
        let out = member.adopt(adoptedSession, at: Self.at(203.4), note: "token 1")
        #expect(Self.signals(out) == ["start@203.0 seconds"])
        #expect(out.contains(.action(.adopt("token 1"), at: Self.at(203.4))))
        var late = Controller<Instant>(program: boxing)
        let lateOut = late.adopt(Self.adopted(boxing, elapsed: .seconds(10), realtimeAnchor: 5_003, realtime: 5_005, now: Self.at(305)),
                                 at: Self.at(305), note: "token 1")
        #expect(Self.signals(lateOut).isEmpty)
        // From then on all three ring the same signals at the same distance from the anchor.
        let next = originator.advance(to: Self.at(103 + 180)).compactMap { if case .signal(let s, let at) = $0 { (s, at.offset + .seconds(100)) } else { nil } }
        #expect(next.map(\.0) == [.warning, .end])
        let memberNext = member.advance(to: Self.at(203 + 180)).compactMap { if case .signal(let s, let at) = $0 { (s, at.offset) } else { nil } }
        #expect(memberNext.map(\.0) == next.map(\.0) && memberNext.map(\.1) == next.map(\.1))
        #expect(late.status(at: Self.at(305)) == member.status(at: Self.at(205)))
    }

    @Test func aMemberRingsNothingForABackOrAnAddedTimeAndTheEndOfAPhaseForATakenOne() throws {
        let boxing = try ProgramSpec.parse("boxing")  // prep 0:10, rounds of 3:00 work
        var originator = Controller<Instant>(program: boxing)
        var member = Controller<Instant>(program: boxing)
        _ = originator.perform(.start, at: Self.at(0))
        _ = member.perform(.start, at: Self.at(0))
        _ = (originator.advance(to: Self.at(59)), member.advance(to: Self.at(59)))  // the prep and the start bell
        // 50 s into round 1, BACK on the originator: to the round's start, silently.
        #expect(Self.signals(originator.perform(.back, at: Self.at(60))).isEmpty)
        let back = originator.session
        #expect(back.elapsed(at: Self.at(60)) == .seconds(10))
        var out = member.adopt(Self.adopted(boxing, elapsed: back.elapsedBefore, realtimeAnchor: 60, realtime: 60.2, now: Self.at(60.2)),
                               at: Self.at(60.2), note: "back")
        #expect(Self.signals(out).isEmpty)
        // 10 s more at the round's start is capped there: silent again on both.
        #expect(Self.signals(originator.perform(.adjust(seconds: 10), at: Self.at(60))).isEmpty)
        out = member.adopt(Self.adopted(boxing, elapsed: .seconds(10), realtimeAnchor: 60, realtime: 60.3, now: Self.at(60.3)),
                           at: Self.at(60.3), note: "adjust +10")
        #expect(Self.signals(out).isEmpty)
        // Taking the whole round away ends it: both ring the round's end.
        let taken = Self.signals(originator.perform(.adjust(seconds: -600), at: Self.at(70)))
        #expect(taken == ["end@70.0 seconds"])
        let ended = originator.session
        out = member.adopt(Self.adopted(boxing, elapsed: ended.elapsedBefore, realtimeAnchor: 70, realtime: 70.2, now: Self.at(70.2)),
                           at: Self.at(70.2), note: "adjust -600")
        #expect(Self.signals(out) == ["end@70.0 seconds"])
        // From then on both ring the same signals at the same instants.
        let next = originator.advance(to: Self.at(200)).compactMap { if case .signal(let s, let at) = $0 { "\(s.rawValue)@\(at.offset)" } else { nil } }
        #expect(!next.isEmpty && Self.signals(member.advance(to: Self.at(200))) == next)
    }

    @Test func aGroupStartRingsWhatTheOriginatorRangAndAResumeRingsNothingTwice() throws {
        let boxing = try ProgramSpec.parse("boxing")
        var originator = Controller<Instant>(program: boxing)
        var rang = Self.signals(originator.perform(.start, at: Self.at(0)) + originator.advance(to: Self.at(10)))
        var member = Controller<Instant>(program: boxing)
        var memberRang = Self.signals(member.adopt(Self.adopted(boxing, realtimeAnchor: 0, realtime: 0.5, now: Self.at(0.5)), at: Self.at(0.5), note: "a")
                                      + member.advance(to: Self.at(10)))
        #expect(memberRang == rang && rang.last == "start@10.0 seconds")
        // Paused exactly at the start bell, resumed: neither rings it again.
        _ = originator.perform(.pause, at: Self.at(10))
        _ = member.adopt(Self.adopted(boxing, elapsed: .seconds(10), realtimeAnchor: nil, realtime: 10, now: Self.at(10)), at: Self.at(10), note: "b")
        rang = Self.signals(originator.perform(.start, at: Self.at(20)))
        memberRang = Self.signals(member.adopt(Self.adopted(boxing, elapsed: .seconds(10), realtimeAnchor: 20, realtime: 20.2, now: Self.at(20.2)),
                                               at: Self.at(20.2), note: "c"))
        #expect(rang.isEmpty && memberRang.isEmpty)
        #expect(member.session.state(at: Self.at(25)) == .running && member.session.elapsed(at: Self.at(25)) == .seconds(15))
    }

    @Test func aCorrectionOfTheRunningRoundNeverRingsTwiceAndNamesWhatItPasses() throws {
        let boxing = try ProgramSpec.parse("boxing")  // prep 0:10; the start bell at 0:10, the warning at 3:00
        var clock = Controller<Instant>(program: boxing)
        _ = clock.perform(.start, at: Self.at(0))
        #expect(Self.signals(clock.advance(to: Self.at(10.05))) == ["prep-tick@7.0 seconds", "prep-tick@8.0 seconds", "prep-tick@9.0 seconds", "start@10.0 seconds"])
        // Group time moves the round 80 ms back, to before the start bell: it does not ring again.
        var out = clock.adopt(Session(program: boxing, anchor: Self.at(0.08)), at: Self.at(10.05), note: "token 1")
        #expect(Self.signals(out).isEmpty && out.contains(.action(.adopt("token 1"), at: Self.at(10.05))))
        #expect(Self.signals(clock.advance(to: Self.at(10.5))).isEmpty)
        // Moved 2 s forward at 0:09.5 of the round: the bells of 0:10 pass, named in the note.
        var early = Controller<Instant>(program: boxing)
        _ = early.perform(.start, at: Self.at(0))
        _ = early.advance(to: Self.at(9.5))
        out = early.adopt(Session(program: boxing, anchor: Self.at(-2)), at: Self.at(9.5), note: "token 2")
        #expect(Self.signals(out).isEmpty)
        #expect(out.contains(.action(.adopt("token 2; passed without ringing: start at 0:10.0"), at: Self.at(9.5))))
        // A later run of the same program (a START that arrives late) still rings its bells.
        var restarted = Controller<Instant>(program: boxing)
        _ = restarted.perform(.start, at: Self.at(0))
        _ = restarted.advance(to: Self.at(100))
        _ = restarted.adopt(Session(program: boxing, anchor: Self.at(98)), at: Self.at(100), note: "token 3")
        #expect(Self.signals(restarted.advance(to: Self.at(108.5))) == ["prep-tick@105.0 seconds", "prep-tick@106.0 seconds", "prep-tick@107.0 seconds", "start@108.0 seconds"])
    }

    @Test func anAnchorFarInThePastFinishesATimedProgramQuietly() throws {
        let countdown = try ProgramSpec.parse("countdown:0:30")
        var member = Controller<Instant>(program: countdown)
        let out = member.adopt(Self.adopted(countdown, realtimeAnchor: 0, realtime: 1_800_000_000, now: Self.at(7)), at: Self.at(7), note: "x")
        #expect(Self.signals(out).isEmpty)
        #expect(member.status(at: Self.at(7)).state == .finished)
        #expect(member.advance(to: Self.at(100_000)).isEmpty)
    }

    /// What an adopter posted to the loop's inbox.
    final class Posted: Sendable {
        let inputs = Mutex<[LoopInput<Instant>]>([])
    }

    static func adopter(posted: Posted) -> SessionAdopter<Instant> {
        SessionAdopter<Instant>(
            clocks: SessionClocks { (Self.at(50), .seconds(2_000)) },
            resolve: { spec in Result { try ProgramSpec.parse(spec) }.mapError { ControlError("\($0)") } },
            syncState: { ClockSyncState(timesyncFlag: false, kernelSynchronized: true, maxError: .microseconds(1_500)) },
            post: { input in posted.inputs.withLock { $0.append(input) } })
    }

    @Test func theAdopterChecksMapsAndPosts() throws {
        let posted = Posted()
        let adopter = Self.adopter(posted: posted)
        let share = SessionShare(program: "boxing", run: .running, elapsedBeforeNanoseconds: 0, anchorRealtimeNanoseconds: 1_997_000_000_000)
        #expect(adopter.adopt(token: 9, share: share) == nil)
        let inputs = posted.inputs.withLock { $0 }
        guard case .adopt(let adopted, let at)? = inputs.first else {
            Issue.record("nothing posted: \(inputs)")
            return
        }
        #expect(at == Self.at(50) && adopted.session.anchor == Self.at(47) && adopted.session.program.name == "boxing")
        var echoed = share
        echoed.adopted = 9
        #expect(adopted.share == echoed)
        #expect(adopted.note == "token 9: boxing running, anchor 3.000000 s ago; wall clock synchronized, max error 1.500 ms")

        var ahead = share
        ahead.anchorRealtimeNanoseconds = (2_000 + 86_400) * 1_000_000_000 + 1
        #expect(adopter.adopt(token: 1, share: ahead) == "adopt: \"anchor_realtime_ns\" lies more than 24 h ahead of this clock's wall clock")
        ahead.anchorRealtimeNanoseconds = (2_000 + 86_400) * 1_000_000_000
        #expect(adopter.adopt(token: 1, share: ahead) == nil)
        let unknown = SessionShare(program: "no such program", run: .ready, elapsedBeforeNanoseconds: 0)
        #expect(adopter.adopt(token: 1, share: unknown)?.hasPrefix("adopt: ") == true)
        let clock = SessionShare(program: "clock", run: .paused, elapsedBeforeNanoseconds: 1)
        #expect(adopter.adopt(token: 1, share: clock) == "adopt: clock shows the wall clock: its session is only ever ready")
        #expect(posted.inputs.withLock { $0.count } == 2)
    }

    @Test func theSessionIsSharedOnCLOCK_REALTIME() throws {
        let boxing = try ProgramSpec.parse("boxing")
        let running = Session<Instant>(program: boxing, elapsedBefore: .seconds(3), anchor: Self.at(40))
        #expect(SessionShare(running, clocks: (Self.at(50), .seconds(2_000)))
                == SessionShare(program: "boxing", run: .running, elapsedBeforeNanoseconds: 3_000_000_000, anchorRealtimeNanoseconds: 1_990_000_000_000))
        #expect(SessionShare(Session<Instant>(program: boxing), clocks: (Self.at(50), .seconds(2_000))).run == .ready)
        #expect(SessionShare(Session<Instant>(program: boxing, elapsedBefore: .seconds(1)), clocks: (Self.at(50), .seconds(2_000))).run == .paused)
        // The wire format restates RoundClockCore's limit.
        #expect(SessionShare.maximumElapsedNanoseconds == TimeLimits.maximumElapsed.wholeNanoseconds)
    }

    @Test func clockSyncStateSaysSynchronizedAndTheMaxError() {
        #expect(ClockSyncState(timesyncFlag: true, kernelSynchronized: nil, maxError: nil).description
                == "wall clock synchronized, max error unknown (adjtimex(2) refused)")
        #expect(ClockSyncState(timesyncFlag: false, kernelSynchronized: false, maxError: .seconds(16)).description
                == "wall clock NOT synchronized, max error 16000.000 ms")
        // On this machine: adjtimex(2) read-only answers outside systemd's ProtectClock.
        #expect(ClockSync.state().maxError != nil)
    }
}
