import BoardSpec
import HT16K33
import Panels
import RoundClockCore
import SegmentDisplay
import Simulation
import Synchronization
import Testing
@testable import RoundClockService

/// Text a panel's backpack cannot show is not an outage: it is reported once and not retried
/// (a retry would re-commit the same face at every backoff, forever).
@Suite struct RejectedFaceTests {
    /// Counts display attempts and keeps the display events.
    final class Attempts: DisplayObserver {
        private let state = Mutex((attempts: 0, events: [DisplayEvent]()))
        var attempts: Int { state.withLock { $0.attempts } }
        var events: [DisplayEvent] { state.withLock { $0.events } }
        func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {}
        func displayed(_ face: Face, update: DisplayUpdate, status: Status, at t: Duration) {
            state.withLock { $0.attempts += 1 }
        }
        func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
            if case .display(let event) = occurrence { state.withLock { $0.events.append(event) } }
        }
    }

    @Test func aFaceThePanelCannotEncodeIsReportedOnceAndNotRetried() async throws {
        let display = BoardDisplay(specs: [PanelSpec(role: .time, kind: .seg7x4, address: 0x70)], devices: [EmulatedHT16K33()], powerChecks: nil)
        _ = await display.start()
        var good = Controller<VirtualClock.Instant>(program: try Presets.countdown(.seconds(60)))
            .face(at: VirtualClock.Instant(offset: .zero), wallTime: WallTime(hour: 12, minute: 0))
        good.time = PanelText(" 1:00")
        _ = await display.show(good)
        var bad = good
        bad.time = PanelText("WXYZ") // the 7-segment font has no W, X or Z
        let first = await display.show(bad)
        #expect(first.retryAfter == nil && first.offline.isEmpty)
        #expect(first.events.count == 1)
        #expect(first.events.first.map { "\($0)".hasPrefix("display time cannot show this picture, keeping the previous one: ") } == true)
        let again = await display.show(bad)
        #expect(again.events.isEmpty && again.retryAfter == nil, "once per error, never retried")
        let kept = await display.inspect { try? $0[0].text(kind: .seg7x4) }
        #expect(kept == " 1:00", "the panel keeps its previous picture")
        var later = good
        later.time = PanelText(" 0:59")
        let back = await display.show(later)
        #expect(back.panels.map(\.text) == [" 0:59"] && back.events.isEmpty)
    }

    /// A board whose phase panel is a 7-segment backpack: "WORK" cannot be encoded. The loop
    /// attempts each new face once, instead of re-committing at every backoff.
    @Test func theLoopDoesNotRecommitARejectedFace() async throws {
        let display = BoardDisplay(specs: [PanelSpec(role: .time, kind: .seg7x4, address: 0x70),
                                           PanelSpec(role: .phase, kind: .seg7x4, address: 0x71)],
                                   devices: [EmulatedHT16K33(address: 0x70), EmulatedHT16K33(address: 0x71)], powerChecks: nil)
        _ = await display.start()
        let observer = Attempts()
        let clock = VirtualClock()
        let start = clock.now
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, display: display, observer: Observers(observer),
                              wallTime: { _ in WallTime(hour: 12, minute: 0) }, stop: .at(start.advanced(by: .seconds(30))),
                              endWhenIdle: true, script: try ScriptedPress.parseList("15.5:stop").flatMap { $0.edges(from: start) })
        var controller = Controller<VirtualClock.Instant>(program: Presets.tabata)
        _ = controller.perform(.start, at: start)
        await loop.run(controller)
        // Prep 0:10 to 0:01 at 0...9 s (10 faces), work 0:20 to 0:15 at 10...15 s (6, the
        // phase panel rejecting "WORK"), paused at 15.5 s (1, blinking): one attempt each.
        #expect(observer.attempts == 17)
        #expect(observer.events.map { "\($0)".hasPrefix("display phase cannot show this picture") } == [true])
    }
}
