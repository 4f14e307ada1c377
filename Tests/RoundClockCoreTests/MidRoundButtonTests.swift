import Testing
import TestSupport
@testable import RoundClockCore

/// MODE while running: held 2 s skips to the next phase; released earlier it counts an
/// AMRAP round, and does nothing in any other program.
@Suite struct MidRoundButtonTests {
    let wall = WallTime(hour: 18, minute: 30)

    func press(_ c: inout Controller<T>, _ b: Button, at t: Double, hold: Double = 0.1) -> [Occurrence<T>] {
        var out = c.handle(ButtonEvent(b, .press, at: .s(t)))
        out += c.advance(to: .s(t + hold))
        out += c.handle(ButtonEvent(b, .release, at: .s(t + hold)))
        return out
    }

    @Test func modeHeldTwoSecondsSkipsToTheNextPhaseOnce() {
        var c = Controller<T>(program: Presets.boxing)
        _ = c.perform(.start, at: .s(0))
        _ = c.handle(ButtonEvent(.mode, .press, at: .s(3)))
        #expect(actions(c.advance(to: .s(4.999))) == [], "not before the 2 s hold")
        let out = c.advance(to: .s(60))
        #expect(actions(out) == [.skip], "one skip per hold")
        #expect(out.contains(.signal(.start, at: .s(5))), "the skipped-to work phase starts with its signal")
        let s = c.session.snapshot(at: .s(5))
        #expect(s?.phase.kind == .work && s?.elapsedInPhase == .zero, "at 5 s the prep was skipped")
        #expect(c.face(at: .s(5), wallTime: wall).time.text == " 3:00")
        _ = c.handle(ButtonEvent(.mode, .release, at: .s(60)))
        #expect(c.program.name == "boxing", "MODE held while running never changes the program")
    }

    @Test func modeHeldWhilePausedSkipsAndStaysPaused() {
        var c = Controller<T>(program: Presets.tabata)
        _ = c.perform(.start, at: .s(0))
        _ = c.perform(.pause, at: .s(12))
        #expect(actions(press(&c, .mode, at: 20, hold: 2)) == [.skip])
        #expect(c.session.state(at: .s(30)) == .paused)
        #expect(c.session.elapsed(at: .s(30)) == .seconds(30), "at the start of the first rest (10 + 20)")
    }

    @Test func aPausedSkipSoundsTheSignalOfWhereItLandsOnce() throws {
        // Tabata: work 10-30 s, rest 30-40 s; the skip lands on the rest, whose start has no
        // signal, so skip on into the next work phase: its start signal sounds at the skip.
        var c = Controller<T>(program: Presets.tabata)
        _ = c.perform(.start, at: .s(0))
        _ = c.perform(.pause, at: .s(12))
        _ = c.perform(.skip, at: .s(13))
        let out = c.perform(.skip, at: .s(14))
        #expect(out.contains(.signal(.start, at: .s(14))), "the next work phase's start, at the skip")
        #expect(c.session.state(at: .s(15)) == .paused)
        let resumed = c.perform(.start, at: .s(20)) + c.advance(to: .s(20.5))
        #expect(!resumed.contains { if case .signal(.start, _) = $0 { true } else { false } },
                "not again when it resumes")
    }

    @Test func aPausedSkipOffTheLastPhaseSoundsFinish() throws {
        var c = Controller<T>(program: try ProgramSpec.parse("countdown:0:05"))
        _ = c.perform(.start, at: .s(0))
        _ = c.perform(.pause, at: .s(1))
        let out = press(&c, .mode, at: 2, hold: 2.5)
        #expect(actions(out) == [.skip])
        #expect(out.contains(.signal(.finish, at: .s(4))))
        #expect(c.session.state(at: .s(5)) == .finished)
    }

    @Test func aModeHoldDoesNotSkipAfterAResetDuringIt() throws {
        // STOP pauses, MODE goes down while paused, STOP resets during the MODE hold: the
        // hold's 2 s pass while ready, and nothing is skipped.
        var c = Controller<T>(program: try ProgramSpec.parse("countdown:0:05"))
        _ = c.perform(.start, at: .s(0))
        _ = press(&c, .stop, at: 0.5)
        _ = c.handle(ButtonEvent(.mode, .press, at: .s(1)))
        _ = press(&c, .stop, at: 1.5)
        let out = c.advance(to: .s(3.5))
        _ = c.handle(ButtonEvent(.mode, .release, at: .s(3.5)))
        #expect(actions(out) == [])
        #expect(c.session.state(at: .s(4)) == .ready)
    }

    @Test func shortModeMidRoundDoesNothingOutsideAnAMRAP() {
        var c = Controller<T>(program: Presets.boxing)
        _ = c.perform(.start, at: .s(0))
        let before = c.face(at: .s(30), wallTime: wall)
        #expect(actions(press(&c, .mode, at: 30, hold: 1.999)) == [])
        #expect(c.face(at: .s(32), wallTime: wall).round == before.round)
        #expect(c.session.elapsed(at: .s(40)) == .seconds(40))
    }

    @Test func modeCountsAMRAPRoundsOnReleaseDuringWork() throws {
        var c = Controller<T>(program: try ProgramSpec.parse("amrap:10"))
        _ = c.perform(.start, at: .s(0))
        #expect(actions(press(&c, .mode, at: 5)) == [], "not during prep")
        #expect(c.face(at: .s(20), wallTime: wall).round.text == "    ")
        #expect(actions(press(&c, .mode, at: 70)) == [.countRound])
        #expect(c.face(at: .s(71), wallTime: wall).round.text == "   1")
        for t in stride(from: 100.0, through: 190.0, by: 10) { _ = press(&c, .mode, at: t) }
        #expect(c.countedRounds == 11)
        #expect(c.face(at: .s(200), wallTime: wall).round.text == "  11")
        #expect(actions(press(&c, .mode, at: 300, hold: 2.5)) == [.skip], "held: skips, no count")
        #expect(c.countedRounds == 11)
        #expect(c.face(at: .s(303), wallTime: wall).round.text == "  11", "the score stays on the finished face")
        #expect(c.face(at: .s(303), wallTime: wall).phase.text == "DONE")
        _ = c.perform(.reset, at: .s(310))
        #expect(c.countedRounds == 0)
    }

    @Test func randomMidRoundGesturesNeverBreakTheTimeline() {
        // Seeded: replay with the printed seed.
        let seed = UInt64.random(in: 0...UInt64.max)
        print("randomMidRoundGesturesNeverBreakTheTimeline seed \(seed)")
        var rng = SplitMix64(seed: seed)
        for program in [Presets.boxing, Presets.fgb, (try? Presets.amrap(minutes: 3)) ?? Presets.tabata] {
            var c = Controller<T>(program: program)
            _ = c.perform(.start, at: .s(0))
            var t = 0.0
            var lastElapsed = Duration.zero
            var hold = 0.0
            for _ in 0..<40 {
                t += hold + Double(rng.next() % 30_000) / 1000
                hold = Double(rng.next() % 4000) / 1000 + 0.001
                _ = press(&c, .mode, at: t, hold: hold)
                let elapsed = c.session.elapsed(at: .s(t + hold))
                #expect(elapsed >= lastElapsed, "seed \(seed): time never goes back")
                #expect(c.program.name == program.name, "seed \(seed)")
                lastElapsed = elapsed
                _ = c.face(at: .s(t + hold), wallTime: wall)
            }
        }
    }
}
