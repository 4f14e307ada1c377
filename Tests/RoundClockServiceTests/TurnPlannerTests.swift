import RoundClockCore
import Testing
@testable import RoundClockService

/// The render loop's turns planned from instants alone: no clock, no thread, no display.
@Suite struct TurnPlannerTests {
    typealias Instant = VirtualClock.Instant

    func t(_ seconds: Double) -> Instant { Instant(offset: .milliseconds(Int64((seconds * 1000).rounded()))) }

    /// What one turn planned, with every display attempt and power check answered as told.
    struct Planned {
        var commits: [PlannedFrame] = []
        var occurrences: [LoopOccurrence] = []
        var events: [LoopEvent<Instant>] = []
        /// nil: the loop ends after this turn.
        var wake: TurnPlanner<Instant>.Wake?
        var times: [String] { commits.map(\.face.time.text) }
    }

    /// One turn at `now`, as the shell runs it; the display answers `retryAfter` (nil: shown).
    func turn(_ planner: inout TurnPlanner<Instant>, at now: Instant, inputs: [LoopInput<Instant>] = [],
              wall: WallTime = WallTime(hour: 12, minute: 0), retryAfter: Duration? = nil) -> Planned {
        var planned = Planned()
        let (taken, early) = planner.begin(at: now, arrived: inputs)
        if let early {
            planned.commits.append(early)
            planner.attempted(early.face, retryAfter: retryAfter, at: now)
        }
        let turn = planner.turn(taken, at: now, wallTime: wall)
        if let commit = turn.commit {
            planned.commits.append(commit)
            planner.attempted(commit.face, retryAfter: retryAfter, at: now)
        }
        planned.occurrences = turn.occurrences
        planned.events = turn.events
        guard !turn.ends, var wake = planner.wake(at: now, wallTime: wall) else { return planned }
        if wake.checksPower { wake = planner.checked(retryAfter: nil, planned: wake, at: now, wallTime: wall) }
        planned.wake = wake
        return planned
    }

    func countdown(_ seconds: Int64, stop: StopCondition<Instant> = .never, powerChecks: Duration? = nil) throws -> TurnPlanner<Instant> {
        var controller = Controller<Instant>(program: try Presets.countdown(.seconds(seconds)))
        _ = controller.perform(.start, at: t(0))
        return TurnPlanner(controller: controller, stop: stop, powerCheckInterval: powerChecks, at: t(0))
    }

    @Test func aCountdownsBoundariesAreItsDeadlines() throws {
        var planner = try countdown(60)
        let first = turn(&planner, at: t(0))
        #expect(first.times == [" 1:00"])
        #expect(first.wake?.deadline == t(1))
        for second in 1...5 {
            let planned = turn(&planner, at: t(Double(second)))
            #expect(planned.commits.count == 1, "the precomputed frame, once, at \(second) s")
            #expect(planned.times == [" 0:\(60 - second)"])
            #expect(planned.wake?.deadline == t(Double(second + 1)))
        }
    }

    @Test func aPowerCheckRidesOnTheNextChange() throws {
        var planner = try countdown(60, powerChecks: .seconds(2))
        // The first turn checks at once; the next check falls due at 2 s, a change's instant.
        #expect(turn(&planner, at: t(0)).wake == .init(deadline: t(1)))
        #expect(turn(&planner, at: t(1)).wake == .init(deadline: t(2)))
        #expect(turn(&planner, at: t(2)).wake == .init(deadline: t(3)))
    }

    @Test func aLateTurnCommitsTheCurrentPictureOnceAndKeepsTheGrid() throws {
        var planner = try countdown(60)
        _ = turn(&planner, at: t(0))
        // Due at 1 s, woken at 1.3 s: the frame of 1 s is still the current one.
        let late = turn(&planner, at: t(1.3))
        #expect(late.times == [" 0:59"])
        #expect(late.wake?.deadline == t(2), "the next boundary, not 1 s after the late wake-up")
        // Due at 2 s, woken at 3.7 s: the precomputed 0:58 is past; only 0:57 is shown.
        let later = turn(&planner, at: t(3.7))
        #expect(later.times == [" 0:57"], "no stale frame, no burst of the missed ones")
        #expect(later.wake?.deadline == t(4))
    }

    @Test func aButtonAtAnInstantIsCommittedInItsTurn() {
        var planner = TurnPlanner<Instant>(controller: Controller(program: Presets.boxing), stop: .never, at: t(0))
        let ready = turn(&planner, at: t(0))
        #expect(ready.commits.last?.status.state == .ready)
        #expect(ready.wake == .init(deadline: nil), "ready: only an input wakes the loop")
        let pressed = turn(&planner, at: t(2.5), inputs: [.command(.start, at: t(2.5))])
        #expect(pressed.commits.count == 1)
        #expect(pressed.commits.first?.status.state == .running)
        #expect(pressed.commits.first?.face.time.text == " 0:10", "the preparation counts down from the press")
        #expect(pressed.occurrences.contains(.action(.start)))
        #expect(pressed.events.contains { if case .sessionChangedByAction(_, let at) = $0 { at == t(2.5) } else { false } })
        #expect(pressed.wake?.deadline == t(3.5), "a second after the press, on the session's own grid")
    }

    @Test func thePhaseEndsOnItsInstantWithTheSignalAnnounced() {
        var controller = Controller<Instant>(program: Presets.tabata)
        _ = controller.perform(.start, at: t(0))
        var planner = TurnPlanner(controller: controller, stop: .never, at: t(0))
        var wake = turn(&planner, at: t(0)).wake
        #expect(planner.controller.status(at: t(0)).phase == .prep)
        while let deadline = wake?.deadline, deadline < t(10) { wake = turn(&planner, at: deadline).wake }
        #expect(wake?.deadline == t(10))
        let work = turn(&planner, at: t(10))
        #expect(work.commits.map(\.status.phase) == [.work])
        #expect(work.occurrences.contains(.signal(.start, ahead: true)), "announced on an earlier turn: \(work.occurrences)")
    }

    @Test func clockModesColonTogglesEveryHalfSecond() throws {
        var planner = TurnPlanner<Instant>(controller: Controller(program: .wallClock), stop: .never, at: t(0))
        var faces: [Face] = []
        var now = t(0)
        for _ in 0..<4 {
            let planned = turn(&planner, at: now, wall: WallTime(hour: 12, minute: 0).advanced(by: now.offset))
            #expect(planned.commits.count == 1)
            faces += planned.commits.map(\.face)
            now = try #require(planned.wake?.deadline)
        }
        #expect(now == t(2), "woken every half second")
        #expect(zip(faces, faces.dropFirst()).allSatisfy { $0 != $1 }, "each turn shows the colon's other half")
    }

    @Test func aFailedCommitIsRetriedAfterItsBackoffNotAgainInTheTurn() throws {
        var planner = try countdown(60)
        let failed = turn(&planner, at: t(0), retryAfter: .milliseconds(100))
        #expect(failed.commits.count == 1)
        #expect(failed.wake?.deadline == t(0.1))
        let retried = turn(&planner, at: t(0.1))
        #expect(retried.times == [" 1:00"], "the same picture, tried again")
        #expect(retried.wake?.deadline == t(1))
    }

    @Test func theStopInstantEndsTheLoop() throws {
        var planner = try countdown(60, stop: .at(t(2)))
        #expect(turn(&planner, at: t(1)).wake != nil)
        let last = turn(&planner, at: t(2))
        #expect(last.times == [" 0:58"], "the frame due at the stop instant is still shown")
        #expect(last.wake == nil)
    }
}
