import Foundation
import Testing
import TestSupport
@testable import RoundClockCore

/// The remote's live edits of a running or paused round: `adjust` (±N s of the current
/// phase, within the phase) and `back` (to the phase's start, or the previous one's just
/// after a phase started). Boxing: prep 0–10 s, round 1 work 10–190 s, rest 190–250 s, ...
@Suite struct LiveEditTests {
    let wall = WallTime(hour: 18, minute: 30)

    func running(_ program: Program = Presets.boxing, since start: Double = 0) -> Controller<T> {
        var c = Controller<T>(program: program)
        _ = c.perform(.start, at: .s(start))
        return c
    }

    /// `action` at `t`, after the signals due before it (what the render loop has fired).
    func edit(_ c: inout Controller<T>, _ action: Action, at t: T) -> [Occurrence<T>] {
        _ = c.advance(to: t)
        return c.perform(action, at: t)
    }

    func signals(_ occurrences: [Occurrence<T>]) -> [Signal] {
        occurrences.compactMap { if case .signal(let s, _) = $0 { s } else { nil } }
    }

    @Test func plusTenSecondsShowsTenMoreSecondsAndKeepsCounting() {
        var c = running()
        #expect(c.face(at: .s(100), wallTime: wall).time.text == " 1:30")
        let out = edit(&c, .adjust(seconds: 10), at: .s(100))
        #expect(actions(out) == [.adjust(seconds: 10)])
        #expect(signals(out).isEmpty, "an adjust inside the phase sounds nothing")
        #expect(c.face(at: .s(100), wallTime: wall).time.text == " 1:40")
        #expect(c.face(at: .s(101), wallTime: wall).time.text == " 1:39", "still running, re-anchored")
        #expect(c.session.snapshot(at: .s(100))?.round == 1)
    }

    @Test func addingStopsAtTheFullPhaseWithoutSoundingItsStartAgain() {
        var c = running()
        let out = edit(&c, .adjust(seconds: 600), at: .s(100))
        #expect(signals(out).isEmpty)
        #expect(c.session.snapshot(at: .s(100))?.remainingInPhase == .seconds(180))
        #expect(signals(c.advance(to: .s(100.5))).isEmpty)
        #expect(c.face(at: .s(100), wallTime: wall).time.text == " 3:00")
    }

    @Test func takingTheWholeRemainingTimeEndsThePhaseAsASkipDoes() {
        var adjusted = running()
        var skipped = running()
        let byAdjust = edit(&adjusted, .adjust(seconds: -600), at: .s(100))
        let bySkip = edit(&skipped, .skip, at: .s(100))
        #expect(signals(byAdjust) == signals(bySkip))
        #expect(signals(byAdjust).contains(.end), "the bell of the round's end")
        #expect(adjusted.session.snapshot(at: .s(100)) == skipped.session.snapshot(at: .s(100)))
        #expect(adjusted.face(at: .s(100), wallTime: wall).phase.text == "REST")
    }

    @Test func takingTimeFromTheLastPhaseFinishesTheSession() {
        var c = running(Presets.tabata)
        let lastWork = Presets.tabata.starts.last!
        let at = T(lastWork + .seconds(5))
        let out = edit(&c, .adjust(seconds: -30), at: at)
        #expect(signals(out).contains(.finish))
        #expect(c.session.state(at: at) == .finished)
    }

    @Test func pausedAdjustChangesTheFrozenTimeAndStaysPaused() {
        var c = running()
        _ = c.perform(.pause, at: .s(100))
        let out = edit(&c, .adjust(seconds: -10), at: .s(120))
        #expect(actions(out) == [.adjust(seconds: -10)])
        #expect(c.session.state(at: .s(130)) == .paused)
        #expect(c.face(at: .s(130), wallTime: wall).time.text == " 1:20")
    }

    @Test func pausedAdjustThatEndsThePhaseSoundsItsEndOnce() {
        var c = running()
        _ = c.perform(.pause, at: .s(100))
        let out = edit(&c, .adjust(seconds: -90), at: .s(120))
        #expect(signals(out).contains(.end))
        _ = c.perform(.start, at: .s(130))
        #expect(!signals(c.advance(to: .s(131))).contains(.end), "not again on resume")
    }

    @Test func countUpPhasesMoveTheirElapsedTheOtherWay() {
        var c = running(Presets.stopwatch)
        #expect(c.face(at: .s(30), wallTime: wall).time.text == " 0:30")
        _ = edit(&c, .adjust(seconds: 10), at: .s(30))
        #expect(c.face(at: .s(30), wallTime: wall).time.text == " 0:20")
        _ = edit(&c, .adjust(seconds: -25), at: .s(30))
        #expect(c.face(at: .s(30), wallTime: wall).time.text == " 0:45")
        _ = edit(&c, .adjust(seconds: 600), at: .s(30))
        #expect(c.face(at: .s(30), wallTime: wall).time.text == " 0:00", "never before the phase's start")
    }

    @Test func refusedWhileReadyFinishedOrInClockMode() {
        var ready = Controller<T>(program: Presets.boxing)
        #expect(actions(edit(&ready, .adjust(seconds: 10), at: .s(5))).isEmpty)
        #expect(actions(edit(&ready, .back, at: .s(5))).isEmpty)
        #expect(ready.session.state(at: .s(5)) == .ready)
        var finished = running(Presets.tabata)
        let end = T(Presets.tabata.total! + .seconds(1))
        #expect(actions(edit(&finished, .adjust(seconds: 10), at: end)).isEmpty)
        #expect(actions(edit(&finished, .back, at: end)).isEmpty)
        #expect(finished.session.state(at: end) == .finished)
        var clock = Controller<T>(program: .wallClock)
        #expect(actions(edit(&clock, .adjust(seconds: -10), at: .s(5))).isEmpty)
        #expect(actions(edit(&clock, .back, at: .s(5))).isEmpty)
    }

    @Test func backGoesToThePhaseStartAndKeepsRunning() {
        var c = running()
        let out = edit(&c, .back, at: .s(100))
        #expect(actions(out) == [.back])
        #expect(signals(out).isEmpty, "the round's start bell does not ring again")
        #expect(c.face(at: .s(100), wallTime: wall).time.text == " 3:00")
        #expect(c.face(at: .s(101), wallTime: wall).time.text == " 2:59")
        #expect(c.session.snapshot(at: .s(100))?.round == 1)
    }

    @Test func backWithinThreeSecondsOfAPhaseStartGoesToThePreviousPhase() {
        var c = running()
        // Round 1's rest started at 190 s: 2 s later, back lands on round 1's work.
        _ = edit(&c, .back, at: .s(192))
        #expect(c.face(at: .s(192), wallTime: wall).phase.text == "WORK")
        #expect(c.face(at: .s(192), wallTime: wall).time.text == " 3:00")
        // Pressed again at once: round 1 started 0 s ago, so back to the prep.
        _ = edit(&c, .back, at: .s(192))
        #expect(c.face(at: .s(192), wallTime: wall).phase.text == "PREP")
        // And again: the first phase goes back to its own start (nothing left to change).
        #expect(actions(edit(&c, .back, at: .s(192))).isEmpty)
        #expect(c.session.elapsed(at: .s(192)) == .zero)
        #expect(c.session.state(at: .s(192)) == .running)
    }

    @Test func backCountsRunningTimeNotWallTimeSinceThePhaseStart() {
        var c = running()
        // Rest starts at 190 s of running time; paused 1 s in, for a minute.
        _ = c.perform(.pause, at: .s(191))
        _ = c.perform(.start, at: .s(251))
        let out = edit(&c, .back, at: .s(252))
        #expect(actions(out) == [.back])
        #expect(c.face(at: .s(252), wallTime: wall).phase.text == "WORK", "2 s of running time into the rest")
    }

    @Test func pausedBackStaysPaused() {
        var c = running()
        _ = c.perform(.pause, at: .s(100))
        _ = edit(&c, .back, at: .s(110))
        #expect(c.session.state(at: .s(120)) == .paused)
        #expect(c.face(at: .s(120), wallTime: wall).time.text == " 3:00")
    }

    /// What the render loop announces to the speaker after an action: the next signals move by
    /// the edit, so the bells still ring on the instants the panels show.
    @Test func theUpcomingSignalsMoveWithTheEdit() {
        var c = running()
        _ = c.advance(to: .s(100))
        let before = c.upcomingSignals(limit: 3)
        _ = edit(&c, .adjust(seconds: 10), at: .s(100))
        let after = c.upcomingSignals(limit: 3)
        #expect(after.map(\.signal) == before.map(\.signal))
        #expect(zip(before, after).allSatisfy { $0.at.advanced(by: .seconds(10)) == $1.at })
        _ = edit(&c, .back, at: .s(100))
        #expect(c.upcomingSignals(limit: 1).first?.at == before.first?.at.advanced(by: .seconds(90)))
    }

    @Test func editsAreLoggedInWords() {
        #expect([Action.adjust(seconds: 10), .adjust(seconds: -10), .back].map(\.description)
                == ["adjust +10 s", "adjust -10 s", "back"])
    }

    /// Random programs, random running or paused sessions, random edits at random instants:
    /// an adjust keeps the remaining time within 0 ... the phase's length and moves it by
    /// exactly the asked seconds when that fits; a back lands on a phase start.
    @Test func randomEditsStayWithinTheirPhase() {
        let seed = ProcessInfo.processInfo.environment["ROUNDCLOCK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("LiveEditTests.randomEditsStayWithinTheirPhase seed \(seed) "
              + "(replay: ROUNDCLOCK_SEED=\(seed) swift test --filter randomEditsStayWithinTheirPhase)")
        var rng = SplitMix64(seed: seed)
        for trial in 0..<300 {
            let rounds = Int(rng.next() % 6) + 1
            let phases = Program.roundPlan(
                prep: rng.chance(50) ? .milliseconds(Int64(rng.next() % 15_000) + 1) : nil, rounds: rounds,
                work: .milliseconds(Int64(rng.next() % 200_000) + 1),
                rest: rng.chance(70) ? .milliseconds(Int64(rng.next() % 60_000) + 1) : nil,
                counting: rng.chance(30) ? .up : .down)
            let program = Program(trusted: "random", label: "RND", phases: phases, warning: nil)
            var session = Session<T>(program: program)
            var now = T(.milliseconds(Int64(rng.next() % 10_000)))
            session.start(at: now)
            for _ in 0..<12 {
                now = now.advanced(by: .milliseconds(Int64(rng.next() % 30_000)))
                if rng.chance(20) { session.pause(at: now) }
                if rng.chance(20) { session.start(at: now) }
                let state = session.state(at: now)
                let before = session.elapsed(at: now)
                let index = program.phaseIndex(atElapsed: before)
                let context = "seed \(seed), trial \(trial), at \(now)"
                if rng.chance(50) {
                    let seconds = (rng.chance(50) ? 1 : -1) * (Int(rng.next() % 600) + 1)
                    let changed = session.adjust(by: .seconds(seconds), at: now)
                    if state != .running, state != .paused { #expect(!changed, "only while underway: \(context)") }
                    guard changed else { continue }
                    let after = session.elapsed(at: now)
                    let start = program.starts[index], end = program.end(ofPhase: index)!
                    #expect(after >= start && after <= end, "within the phase: \(context)")
                    let wanted = before - .seconds(seconds)
                    if wanted >= start, wanted <= end { #expect(after == wanted, "exactly \(seconds) s: \(context)") }
                    let stateAfter = session.state(at: now)
                    // A paused session moved to 0 s is ready: the anchor model has no paused 0 s.
                    let expected: SessionState = after == program.total ? .finished : after == .zero && state == .paused ? .ready : state
                    #expect(stateAfter == expected, "keeps running or paused: \(context)")
                } else {
                    let changed = session.back(at: now)
                    guard changed else {
                        #expect(state != .running && state != .paused || before == .zero, "\(context)")
                        continue
                    }
                    let after = session.elapsed(at: now)
                    #expect(program.starts.contains(after), "on a phase start: \(context)")
                    #expect(after == program.starts[index] || after == program.starts[max(index - 1, 0)], "\(context)")
                    #expect(after < before, "\(context)")
                }
            }
        }
    }
}
