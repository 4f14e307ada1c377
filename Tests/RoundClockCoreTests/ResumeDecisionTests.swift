import RoundClockCore
import Testing

/// The resume decision table: same boot, other boot (synced, unsynced, disallowed), clock
/// gone backwards, and the mapping of the saved anchor onto the new clock.
@Suite struct ResumeDecisionTests {
    let bootA = "aaaaaaaa-0000-0000-0000-000000000001"
    let bootB = "bbbbbbbb-0000-0000-0000-000000000002"
    /// The service's clock at start-up (an arbitrary origin).
    let now = T.s(5000)

    /// A boxing session started at T=100 on a clock that reads CLOCK_BOOTTIME 1000 s and
    /// CLOCK_REALTIME 1_700_000_000 s at T=100, saved at T=130 (30 s in: prep done, 20 s of round 1).
    func runningSaved() -> SavedSession {
        var session = Session<T>(program: Presets.boxing)
        session.start(at: .s(100))
        return SavedSession(session, at: .s(130), bootID: bootA, boottime: .seconds(1030), realtime: .seconds(1_700_000_030))
    }

    func context(boot: String, boottime: Double = 1100, realtime: Double = 1_700_000_100, synced: Bool = true, allowed: Bool = true) -> ResumeContext {
        ResumeContext(bootID: boot, boottime: .s(boottime), realtime: .s(realtime), clockSynchronized: synced, resumeAfterReboot: allowed)
    }

    @Test func capturesAnchorOnBothClocks() {
        let saved = runningSaved()
        #expect(saved.runState == .running && saved.program == "boxing" && saved.elapsedBefore == .zero)
        #expect(saved.anchorBoottime == .seconds(1000) && saved.anchorRealtime == .seconds(1_700_000_000))
        #expect(saved.savedRealtime == .seconds(1_700_000_030))
    }

    @Test func sameBootRunningResumesExactly() {
        // Restarted 100 s of CLOCK_BOOTTIME after the anchor: 100 s into the session.
        let (session, outcome) = ResumeDecision.decide(runningSaved(), program: Presets.boxing, context: context(boot: bootA, realtime: 0, synced: false, allowed: false), now: now)
        #expect(outcome == .sameBoot, "same boot ignores wall time, sync and after_reboot")
        #expect(session.elapsed(at: now) == .seconds(100))
        #expect(session.state(at: now) == .running)
        #expect(session.anchor == T.s(4900))
    }

    @Test func sameBootPausedStaysPaused() {
        var session = Session<T>(program: Presets.tabata)
        session.start(at: .s(0))
        session.pause(at: .s(42.5))
        let saved = SavedSession(session, at: .s(60), bootID: bootA, boottime: .seconds(2000), realtime: .seconds(1_700_000_000))
        #expect(saved.runState == .paused && saved.anchorBoottime == nil && saved.anchorRealtime == nil)
        let (restored, outcome) = ResumeDecision.decide(saved, program: Presets.tabata, context: context(boot: bootA), now: now)
        #expect(outcome == .sameBoot)
        #expect(restored.state(at: now) == .paused && restored.elapsed(at: now) == .s(42.5))
    }

    @Test func readyComesBackReadyWithItsProgram() {
        let saved = SavedSession(Session<T>(program: Presets.mma), at: .s(1), bootID: bootA, boottime: .seconds(1), realtime: .seconds(1))
        #expect(saved.runState == .ready)
        let (session, outcome) = ResumeDecision.decide(saved, program: Presets.mma, context: context(boot: bootB), now: now)
        #expect(session.program == Presets.mma && session.state(at: now) == .ready)
        #expect(outcome == .ready("it was ready"))
    }

    @Test func otherBootSyncedResumesByWallTime() {
        // Rebooted: CLOCK_BOOTTIME restarted near 0; wall clock 200 s after the anchor.
        let (session, outcome) = ResumeDecision.decide(runningSaved(), program: Presets.boxing, context: context(boot: bootB, boottime: 15, realtime: 1_700_000_200), now: now)
        #expect(outcome == .wallTime)
        #expect(session.elapsed(at: now) == .seconds(200))
        #expect(session.snapshot(at: now)?.phase.kind == .rest, "10 s prep + 180 s round 1 + 10 s of rest")
    }

    @Test func otherBootUnsyncedComesUpReady() {
        let (session, outcome) = ResumeDecision.decide(runningSaved(), program: Presets.boxing, context: context(boot: bootB, synced: false), now: now)
        #expect(session.state(at: now) == .ready && session.program == Presets.boxing)
        #expect(outcome == .ready("rebooted and the system clock is not synchronized"))
    }

    @Test func otherBootDisallowedComesUpReady() {
        let (session, outcome) = ResumeDecision.decide(runningSaved(), program: Presets.boxing, context: context(boot: bootB, allowed: false), now: now)
        #expect(session.state(at: now) == .ready)
        #expect(outcome == .ready("rebooted and [resume] after_reboot = false"))
    }

    @Test func otherBootClockGoneBackwardsComesUpReady() {
        // Behind the saved instant (1_700_000_030) though after the anchor: not trusted.
        let (session, outcome) = ResumeDecision.decide(runningSaved(), program: Presets.boxing, context: context(boot: bootB, realtime: 1_700_000_020), now: now)
        #expect(session.state(at: now) == .ready)
        #expect(outcome == .ready("rebooted and the wall clock is behind the saved state"))
        // A Pi without RTC that booted in 1970 and claims to be synchronized.
        let early = ResumeDecision.decide(runningSaved(), program: Presets.boxing, context: context(boot: bootB, realtime: 30), now: now)
        #expect(early.outcome == .ready("rebooted and the wall clock is behind the saved state"))
    }

    @Test func otherBootPausedResumesPausedEvenUnsynced() {
        let saved = SavedSession(program: "tabata", runState: .paused, elapsedBefore: .seconds(75), bootID: bootA, savedRealtime: .seconds(1_700_000_000))
        let (session, outcome) = ResumeDecision.decide(saved, program: Presets.tabata, context: context(boot: bootB, realtime: 10, synced: false), now: now)
        #expect(outcome == .pausedAcrossReboot)
        #expect(session.state(at: now) == .paused && session.elapsed(at: now) == .seconds(75))
        let disallowed = ResumeDecision.decide(saved, program: Presets.tabata, context: context(boot: bootB, allowed: false), now: now)
        #expect(disallowed.session.state(at: now) == .ready)
    }

    @Test func longAfterTheEndIsFinished() {
        let (session, outcome) = ResumeDecision.decide(runningSaved(), program: Presets.boxing, context: context(boot: bootB, realtime: 1_800_000_000), now: now)
        #expect(outcome == .wallTime)
        #expect(session.state(at: now) == .finished)
    }

    @Test func sameBootAnchorInTheFutureIsRejected() {
        let (session, outcome) = ResumeDecision.decide(runningSaved(), program: Presets.boxing, context: context(boot: bootA, boottime: 999), now: now)
        #expect(session.state(at: now) == .ready)
        #expect(outcome == .ready("the saved anchor lies after CLOCK_BOOTTIME now"))
    }

    @Test func resumedAfterPauseKeepsElapsedBefore() {
        var session = Session<T>(program: Presets.boxing)
        session.start(at: .s(0))
        session.pause(at: .s(50))
        session.start(at: .s(80))   // resumed: elapsedBefore 50, anchor 80
        let saved = SavedSession(session, at: .s(90), bootID: bootA, boottime: .seconds(500), realtime: .seconds(1_700_000_000))
        #expect(saved.elapsedBefore == .seconds(50) && saved.anchorBoottime == .seconds(490))
        let (restored, _) = ResumeDecision.decide(saved, program: Presets.boxing, context: context(boot: bootA, boottime: 500), now: now)
        #expect(restored.elapsed(at: now) == .seconds(60))
    }

    @Test func controllerRestoreDoesNotReplayPastSignals() {
        var controller = Controller<T>(program: Presets.boxing)
        let (session, _) = ResumeDecision.decide(runningSaved(), program: Presets.boxing, context: context(boot: bootA, boottime: 1100), now: now)
        controller.restore(session, at: now)
        // 100 s in: prep ticks and the first start are past; the next signal is the warning at 180 s.
        let occurrences = controller.advance(to: now.advanced(by: .seconds(80)))
        #expect(occurrences == [.signal(.warning, at: now.advanced(by: .seconds(80)))])
        #expect(controller.session.state(at: now) == .running)
    }
}
