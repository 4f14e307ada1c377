import ControlProtocol
import Foundation
import RoundClockCore
import Testing
import TestSupport
@testable import RoundClockService

/// A command and a press behave identically (docs/buttons-and-panels.md): random sequences of
/// `start`, `stop`, `mode` and `hold-stop` given as commands to one controller and as
/// button edges to another (a hold as a press released after the long press) leave both
/// in the same state, showing the same face, after every step.
@Suite struct ControlInputTests {
    typealias Instant = ContinuousClock.Instant

    static func controllers(hasModeButton: Bool) -> (Controller<Instant>, Controller<Instant>) {
        let make = { Controller<Instant>(program: Presets.cycle[0], hasModeButton: hasModeButton) }
        return (make(), make())
    }

    @Test(arguments: [true, false])
    func commandsAndPressesLeaveTheSameState(hasModeButton: Bool) {
        let seed = ProcessInfo.processInfo.environment["CONTROL_INPUT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("ControlInputTests.commandsAndPressesLeaveTheSameState seed \(seed) (replay: CONTROL_INPUT_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        let wall = WallTime(hour: 12, minute: 0)
        for _ in 0..<50 {
            var (commanded, pressed) = Self.controllers(hasModeButton: hasModeButton)
            var now = ContinuousClock.now
            for _ in 0..<30 {
                let command = rng.pick([ControlCommand.start, .stop, .mode, .holdStop])
                _ = commanded.apply(.command(command, at: now))
                switch command {
                case .start: _ = pressed.apply(.button(ButtonEvent(.start, .press, at: now))); _ = pressed.handle(ButtonEvent(.start, .release, at: now))
                case .stop: _ = pressed.handle(ButtonEvent(.stop, .press, at: now)); _ = pressed.handle(ButtonEvent(.stop, .release, at: now))
                case .mode: _ = pressed.handle(ButtonEvent(.mode, .press, at: now)); _ = pressed.handle(ButtonEvent(.mode, .release, at: now))
                default:
                    _ = pressed.handle(ButtonEvent(.stop, .press, at: now))
                    _ = pressed.handle(ButtonEvent(.stop, .release, at: now.advanced(by: pressed.longPress)))
                }
                // The next input comes after the hold would have ended (a hold's pause then
                // reset leave no trace in between: reset is from any state).
                now = now.advanced(by: pressed.longPress + .milliseconds(Int64(1 + rng.next() % 20_000)))
                _ = commanded.advance(to: now)
                _ = pressed.advance(to: now)
                #expect(commanded.status(at: now) == pressed.status(at: now), "seed \(seed)")
                #expect(commanded.face(at: now, wallTime: wall) == pressed.face(at: now, wallTime: wall), "seed \(seed)")
            }
        }
    }

    @Test func programAndResetAndSkipActOnlyWhereTheirButtonsWould() {
        let start = ContinuousClock.now
        var controller = Controller<Instant>(program: Presets.cycle[0])
        // Ready: a program is chosen, by name or DSL line.
        _ = controller.apply(.command(.program("tabata"), at: start))
        #expect(controller.program.name == "tabata")
        _ = controller.apply(.command(.program("5 x 0:20/0:10"), at: start))
        #expect(controller.status(at: start).rounds == 5)
        // Running: no program change (as MODE); skip ends the phase; reset from any state.
        _ = controller.apply(.command(.start, at: start))
        let later = start.advanced(by: .seconds(1))
        _ = controller.apply(.command(.program("tabata"), at: later))
        #expect(controller.status(at: later).rounds == 5 && controller.status(at: later).state == .running)
        let phase = controller.status(at: later).phase
        _ = controller.apply(.command(.skip, at: later))
        #expect(controller.status(at: later).phase != phase)
        _ = controller.apply(.command(.reset, at: later))
        #expect(controller.status(at: later).state == .ready)
    }

    @Test func adjustAndBackAreTheCoreLiveEdits() {
        let start = ContinuousClock.now
        var controller = Controller<Instant>(program: Presets.boxing)
        _ = controller.apply(.command(.start, at: start))
        let later = start.advanced(by: .seconds(100))
        let adjusted = controller.apply(.command(.adjust(seconds: 10), at: later))
        #expect(adjusted.contains(.action(.adjust(seconds: 10), at: later)))
        #expect(controller.session.snapshot(at: later)?.remainingInPhase == .seconds(100))
        let backed = controller.apply(.command(.back, at: later))
        #expect(backed.contains(.action(.back, at: later)))
        #expect(controller.session.snapshot(at: later)?.remainingInPhase == .seconds(180))
    }
}
