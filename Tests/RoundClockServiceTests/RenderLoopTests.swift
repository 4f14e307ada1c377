import BoardSpec
import I2C
import Panels
import RoundClockCore
import SegmentDisplay
import Simulation
import Synchronization
import Testing
@testable import RoundClockService

/// Records everything the loop reports.
final class Recorder: DisplayObserver {
    struct Entry: Sendable { var t: Duration; var face: Face; var panels: [PanelReadout]; var status: Status }
    private let state = Mutex((frames: [Entry](), occurrences: [(Duration, LoopOccurrence)]()))
    var frames: [Entry] { state.withLock { $0.frames } }
    var occurrences: [(Duration, LoopOccurrence)] { state.withLock { $0.occurrences } }
    var signals: [(Duration, Signal)] {
        occurrences.compactMap { if case .signal(let s, _) = $0.1 { ($0.0, s) } else { nil } }
    }
    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        state.withLock { $0.frames.append(Entry(t: t, face: face, panels: panels, status: status)) }
    }
    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        state.withLock { $0.occurrences.append((t, occurrence)) }
    }
}

let simulatorPanels = [
    PanelSpec(role: .time, kind: .seg7x4, address: 0x70),
    PanelSpec(role: .round, kind: .seg7x4, address: 0x71),
    PanelSpec(role: .phase, kind: .seg14x4, address: 0x72),
]

/// Three emulated chips behind the real driver, as `simulate` uses them.
func emulatedBoard(failFirst: Int = 0) -> BoardDisplay<EmulatedHT16K33> {
    let chips = simulatorPanels.map { EmulatedHT16K33(address: $0.address) }
    if failFirst > 0 { chips[0].failNext(failFirst, errno: Errno.EIO) }
    return BoardDisplay(specs: simulatorPanels, devices: chips)
}

@Suite struct RenderLoopTests {
    let epoch = WallTime(hour: 12, minute: 0)

    func virtualLoop(_ program: Program, script: [ScriptedPress] = [], stop: StopCondition<VirtualClock.Instant> = .afterFinish(.seconds(1)),
                     display: any FaceDisplay = emulatedBoard(), recorder: Recorder) -> (RenderLoop<VirtualTimeWaiter>, Controller<VirtualClock.Instant>) {
        let clock = VirtualClock()
        let start = clock.now
        let epoch = self.epoch
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, display: display, observer: Observers(recorder),
                              wallTime: { epoch.advanced(by: start.duration(to: $0)) }, stop: stop, endWhenIdle: true,
                              script: script.flatMap { $0.edges(from: start) })
        var controller = Controller<VirtualClock.Instant>(program: program)
        _ = controller.perform(.start, at: start)
        return (loop, controller)
    }

    @Test func boxingInVirtualTimeCommitsEverySecondOnTheDot() async {
        let recorder = Recorder()
        let (loop, controller) = virtualLoop(Presets.boxing, recorder: recorder)
        let final = await loop.run(controller)
        let frames = recorder.frames
        #expect(frames.count == 2831, "one commit per displayed second, none extra")
        for (i, frame) in frames.enumerated() { #expect(frame.t == .seconds(i)) }
        #expect(frames.last?.face.time.text == " 0:00")
        #expect(frames.last?.status.state == .finished)
        #expect(recorder.signals.last.map { $0.0 } == .seconds(2830))
        #expect(recorder.signals.filter { $0.1 == .warning }.map(\.0).prefix(2) == [.seconds(180), .seconds(420)])
        #expect(loop.clock.now.offset == .seconds(2831), "stops 1 s after the finish")
        #expect(final.session.state(at: loop.clock.now) == .finished)
    }

    @Test func scriptedPauseAndResumeAtFractionalInstants() async throws {
        let recorder = Recorder()
        let script = try ScriptedPress.parseList("30.5:stop,40.25:start")
        let (loop, controller) = virtualLoop(Presets.tabata, script: script, recorder: recorder)
        await loop.run(controller)
        let frames = recorder.frames
        let paused = try #require(frames.first { $0.status.state == .paused })
        #expect(paused.t == .milliseconds(30_500) && paused.face.time == PanelText(" 0:10", blinking: true))
        let resumed = try #require(frames.first { $0.t == .milliseconds(40_250) })
        #expect(resumed.face.time == PanelText(" 0:10") && resumed.status.state == .running)
        // Boundaries after the pause move by exactly 9.75 s: the next digit change falls
        // 0.5 s after resuming (the second was half used before the pause).
        let next = try #require(frames.first { $0.t > .milliseconds(40_250) })
        #expect(next.t == .milliseconds(40_750) && next.face.time.text == " 0:09")
        #expect(frames.last?.t == .milliseconds(249_750), "finish moved by the 9.75 s pause")
    }

    @Test func signalsOnTheProgramsBoundariesWereAnnouncedAheadAndASkipsWasNot() async throws {
        let recorder = Recorder()
        // paused 30.5-40.25 s, then MODE held from 50 s: a skip at 52 s (a 2 s hold), in round 2
        let script = try ScriptedPress.parseList("30.5:stop,40.25:start,50:mode:2.5")
        let (loop, controller) = virtualLoop(Presets.tabata, script: script, recorder: recorder)
        await loop.run(controller)
        let signals = recorder.occurrences.compactMap { t, occurrence -> (Duration, Bool)? in
            if case .signal(_, let ahead) = occurrence { (t, ahead) } else { nil }
        }
        #expect(signals.filter { !$0.1 }.map(\.0) == [.seconds(52)], "only the skip's signal came unannounced")
        #expect(signals.count >= 18, "every boundary of the program, the resumed ones included")
    }

    @Test func aVanishedPanelIsRetriedWithBackoffAndFullyReinitialised() async throws {
        let recorder = Recorder()
        let chips = simulatorPanels.map { EmulatedHT16K33(address: $0.address) }
        let display = BoardDisplay(specs: simulatorPanels, devices: chips)
        _ = await display.start()
        let clock = VirtualClock()
        let start = clock.now
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, display: display, observer: Observers(recorder),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(start.advanced(by: .seconds(12))),
                              endWhenIdle: true)
        var controller = Controller<VirtualClock.Instant>(program: Presets.tabata)
        _ = controller.perform(.start, at: start)
        // The time panel's chip loses power at once and then NACKs 6 transfers.
        await display.inspect { devices in
            devices[0].powerLoss(garbage: .pattern([0xAA]))
            devices[0].failNext(6, errno: Errno.ENXIO)
        }
        let final = await loop.run(controller)
        let events = recorder.occurrences.compactMap { entry -> (Duration, DisplayEvent)? in
            if case .display(let e) = entry.1 { (entry.0, e) } else { nil }
        }
        #expect(events.count == 2, "logged once per outage: offline, then online")
        #expect(events.first.map { "\($0.1)".contains("ENXIO") && "\($0.1)".contains("time") } == true)
        // Attempts at 0, 0.1, 0.3, 0.7 (backoff) and 1.0, 2.0 (the next faces) fail:
        // 6 transfers NACKed; the attempt with the face of 3.0 succeeds.
        #expect(events.last?.0 == .seconds(3))
        #expect(events.last?.1 == .online(.time))
        let other = recorder.frames.map { $0.panels.map(\.role) }
        #expect(other.first == [.round, .phase], "the other panels kept going")
        // Fully re-initialised: RAM, oscillator, display on, dimming all restored.
        let state = await display.inspect { d in (d[0].ram, d[0].isLit, d[0].brightness) }
        let restored = try Frame(" 0:18", kind: .seg7x4).ram()
        #expect(state.0 == restored && state.1 && state.2 == 15)
        #expect(final.session.elapsed(at: clock.now) == .seconds(12), "the session never stopped")
        #expect(recorder.frames.last?.panels.first?.text == " 0:18")
    }

    @Test func panelsHoldWhatTheFaceSaysDecodedFromChipRAM() async throws {
        let recorder = Recorder()
        let (loop, controller) = virtualLoop(Presets.boxing, script: try ScriptedPress.parseList("11.5:stop"),
                                             stop: .at(VirtualClock.Instant(offset: .seconds(12))), recorder: recorder)
        await loop.run(controller)
        let paused = try #require(recorder.frames.last)
        #expect(paused.panels.map(\.text) == [" 2:59", " 1.12", "WORK"])
        #expect(paused.panels[0].blink == .oneHertz && paused.panels[1].blink == .off)
        let shown = try Frame(" 2:59", kind: .seg7x4).ram()
        #expect(ramHex(paused.panels[0].ram) == ramHex(shown))
    }

    @Test func aButtonPressWakesTheLoopAtOnce() async throws {
        let recorder = Recorder()
        let clock = ContinuousClock()
        let inbox = ButtonInbox<ContinuousClock.Instant>()
        let loop = RenderLoop(waiter: ClockSleepWaiter(clock: clock), start: clock.now, inbox: inbox, display: emulatedBoard(), observer: Observers(recorder),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .never)
        let task = Task { await loop.run(Controller(program: Presets.boxing)) }
        // Ready: nothing scheduled, the loop sleeps until input arrives.
        // Generous deadlines: they only matter when the test fails.
        let firstFrameBy = clock.now.advanced(by: .seconds(60))
        while recorder.frames.isEmpty, clock.now < firstFrameBy { try await Task.sleep(for: .milliseconds(5)) }
        #expect(recorder.frames.last?.status.state == .ready)
        let pressed = clock.now
        inbox.post(ButtonEvent(.start, .press, at: pressed))
        let runningBy = clock.now.advanced(by: .seconds(60))
        while recorder.frames.last?.status.state != .running, clock.now < runningBy {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(recorder.frames.last?.status.state == .running)
        task.cancel()
        let final = await task.value
        #expect(final.session.state(at: clock.now) == .running, "cancellation ends the loop, the session is kept")
        // The session counts from the press itself, however late a loaded machine ran the loop.
        #expect(final.session.elapsed(at: pressed) == .zero)
        #expect(final.session.elapsed(at: pressed.advanced(by: .seconds(1))) == .seconds(1))
    }

    /// A command the socket acknowledged just before a shutdown is not lost: the loop, stopped
    /// before it could turn again, applies it, so the session it hands over (to be saved and
    /// shown last) includes it.
    @Test func anInputTakenBeforeAStopIsAppliedToTheFinalSession() async throws {
        let recorder = Recorder()
        let clock = VirtualClock()
        let inbox = ButtonInbox<VirtualClock.Instant>()
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: clock.now, inbox: inbox, display: emulatedBoard(), observer: Observers(recorder),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .never)
        inbox.post(.start, at: clock.now)
        // The loop starts only once its task is cancelled: it never turns.
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return await loop.run(Controller(program: Presets.boxing))
        }
        task.cancel()
        let final = await task.value
        #expect(recorder.frames.isEmpty, "no turn ran")
        #expect(final.session.state(at: clock.now) == .running, "the START taken before the stop")
    }

    @Test func framesFileFormat() {
        let status = Status(state: .running, phase: .work, round: 1, rounds: 12)
        let ram = try! Frame(" 2:58", kind: .seg7x4).ram()
        let panel = PanelReadout(role: .time, kind: .seg7x4, text: " 2:58", ram: ram, brightness: 15, blink: .off, displayOn: true)
        #expect(FramesRecorder.panelLine(t: .seconds(12), decimals: 3, panel: panel, status: status)
                == #"{"t": 12.000, "panel": "time", "text": " 2:58", "phase": "work", "round": 1, "rounds": 12, "state": "running", "ram": "00005b0002006d007f00000000000000", "brightness": 15, "blink": "off"}"#)
        #expect(Duration.microseconds(12_000_345).formattedSeconds(decimals: 6) == "12.000345")
        #expect(FramesRecorder.jsonString("a\"b\\c\u{1}") == #""a\"b\\c\u0001""#)
    }
}

/// The loop commits the frame it computed before sleeping as soon as it wakes
/// (docs/design.md: precompute, sleep, write); the full turn that follows must correct it
/// when the world changed during the sleep.
@Suite struct PrecomputedFrameTests {
    @Test func aWallClockStepDuringTheSleepIsCorrectedInTheSameTurn() async throws {
        let recorder = Recorder()
        let clock = VirtualClock()
        let start = clock.now
        // The wall clock is stepped forward one hour at 5 s (an NTP step while asleep).
        let wallTime: @Sendable (VirtualClock.Instant) -> WallTime = { instant in
            let elapsed = start.duration(to: instant)
            let base = WallTime(hour: 12, minute: 0).advanced(by: elapsed)
            return elapsed >= .seconds(5) ? base.advanced(by: .seconds(3600)) : base
        }
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, display: emulatedBoard(), observer: Observers(recorder),
                              wallTime: wallTime, stop: .at(start.advanced(by: .seconds(6))), endWhenIdle: true)
        await loop.run(Controller(program: .wallClock))
        let atStep = recorder.frames.filter { $0.t == .seconds(5) }
        let before = try #require(recorder.frames.last { $0.t < .seconds(5) })
        #expect(before.panels[0].text.contains("12"), "before the step: \(before.panels[0].text)")
        #expect(atStep.count == 2, "the precomputed 12 o'clock frame, then the correction")
        let corrected = try #require(atStep.last)
        #expect(corrected.panels[0].text.contains("13"), "the turn at 5 s ends on the stepped time: \(corrected.panels[0].text)")
        #expect(recorder.frames.last?.panels[0].text.contains("13") == true)
    }

    @Test func anUnchangedWorldCommitsEachFrameOnce() async {
        let recorder = Recorder()
        let clock = VirtualClock()
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: clock.now, display: emulatedBoard(), observer: Observers(recorder),
                              wallTime: { _ in WallTime(hour: 9, minute: 30) }, stop: .afterFinish(.zero), endWhenIdle: true)
        var controller = Controller<VirtualClock.Instant>(program: Presets.tabata)
        _ = controller.perform(.start, at: clock.now)
        await loop.run(controller)
        let instants = recorder.frames.map(\.t)
        #expect(Set(instants).count == instants.count, "no frame committed twice at one instant")
        #expect(instants.count == 241, "0:10 prep + 8 × 0:20 + 7 × 0:10 rest = 4:00: one commit per displayed second")
    }
}
