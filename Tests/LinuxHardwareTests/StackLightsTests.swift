#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import RoundClockCore
import ServiceLifecycle
import Testing
import TestSupport
@testable import LinuxHardware

/// The stack light's lamps on recording lines, and the horn: the buzzer's pattern player on
/// its own line with the horn's patterns.
@Suite struct StackLightsTests {
    typealias Write = RecordingLine.Write
    let clock = ManualClock()
    let work: RecordingLine, rest: RecordingLine, warn: RecordingLine
    let failures = FailureLog()
    let lights: StackLights

    init() {
        work = RecordingLine(clock: clock)
        rest = RecordingLine(clock: clock)
        warn = RecordingLine(clock: clock)
        lights = StackLights(lines: [.work: work, .rest: rest, .warn: warn], clock: clock, onFailure: failures.record)
    }

    func ms(_ n: Int) -> Duration { .milliseconds(n) }
    func on(_ t: Int) -> Write { Write(on: true, at: ms(t)) }
    func off(_ t: Int) -> Write { Write(on: false, at: ms(t)) }

    @Test func eachLampIsWrittenOnlyWhenItsLevelChanges() async {
        await lights.show(StackLight(lamp: .rest))
        await lights.show(StackLight(lamp: .rest)) // the same light: nothing written
        clock.advance(to: ms(10_000))
        await lights.show(StackLight(lamp: .work))
        clock.advance(to: ms(180_000))
        await lights.show(StackLight(lamp: .warn))
        clock.advance(to: ms(190_000))
        await lights.show(StackLight(lamp: .rest))
        #expect(rest.writes == [on(0), off(10_000), on(190_000)])
        #expect(work.writes == [on(10_000), off(180_000)])
        #expect(warn.writes == [on(180_000), off(190_000)])
        #expect(clock.sleeping == 0, "a steady light needs no task")
    }

    @Test func aPausedLampBlinksAtOneHertzUntilTheLightChanges() async {
        await lights.show(StackLight(lamp: .work))
        await lights.show(StackLight(lamp: .work, blinking: true))
        #expect(work.writes == [on(0)], "the blink starts on: already lit")
        for t in [500, 1000, 1500] {
            #expect(await eventually { clock.sleeping == 1 })
            clock.advance(to: ms(t))
        }
        #expect(await eventually { work.writes.count == 4 })
        #expect(work.writes == [on(0), off(500), on(1000), off(1500)])
        #expect(await eventually { clock.sleeping == 1 })
        clock.advance(to: ms(1700))
        await lights.show(StackLight(lamp: .work)) // resumed mid-blink, in the off half
        #expect(work.writes.last == on(1700))
        clock.advance(to: ms(5000))
        #expect(await eventually { clock.sleeping == 0 }, "the blink task has ended")
        #expect(work.writes.count == 5, "the old blink never writes again")
        #expect(rest.writes.isEmpty && warn.writes.isEmpty)
    }

    @Test func releaseSwitchesEveryLampOffAndEndsTheBlink() async {
        await lights.show(StackLight(lamp: .rest, blinking: true))
        #expect(await eventually { clock.sleeping == 1 })
        clock.advance(to: ms(500))
        #expect(await eventually { rest.writes.count == 2 && clock.sleeping == 1 })
        clock.advance(to: ms(700))
        await lights.release()
        #expect(clock.sleeping == 0)
        #expect(rest.writes == [on(0), off(500)], "already off in the blink: nothing more to write")
        #expect(!work.isOn && !rest.isOn && !warn.isOn)
    }

    @Test func aFailingLampIsReportedOnceAndTheOthersGoOn() async {
        warn.fail(with: EIO)
        await lights.show(StackLight(lamp: .warn))
        await lights.show(StackLight(lamp: .rest))
        await lights.show(StackLight(lamp: .warn))
        #expect(failures.all.map(\.errno) == [EIO], "once, not per write")
        #expect(rest.writes == [on(0), off(0)])
        warn.fail(with: nil)
        await lights.show(StackLight(lamp: .work))
        #expect(warn.writes == [off(0)], "written again after the failure, to be sure it is off")
        #expect(work.writes == [on(0)])
    }

    @Test func aBoardWithSomeLampsOnlyDrivesThose() async {
        let green = RecordingLine(clock: clock)
        let partial = StackLights(lines: [.work: green], clock: clock, onFailure: failures.record)
        await partial.show(StackLight(lamp: .rest))
        await partial.show(StackLight(lamp: .work))
        await partial.release()
        #expect(green.writes == [on(0), off(0)])
        #expect(failures.all.isEmpty)
    }

    @Test func theServiceShowsPostedLightsAndSwitchesOffOnShutdown() async throws {
        let service = StackLightService(lights: lights)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let running = Task { try await group.run() }
        service.post(StackLight(lamp: .work))
        #expect(await eventually { work.isOn })
        clock.advance(to: ms(300))
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(work.writes == [on(0), off(300)], "shutdown switches the lit lamp off")
        #expect(!rest.isOn && !warn.isOn)
    }

    @Test func theServiceCancelledWhileBlinkingLeavesEveryLampOff() async {
        let service = StackLightService(lights: lights)
        let running = Task { await service.run() }
        service.post(StackLight(lamp: .warn, blinking: true))
        #expect(await eventually { warn.isOn && clock.sleeping == 1 })
        running.cancel()
        await running.value
        #expect(!warn.isOn && clock.sleeping == 0)
    }

    @Test func theHornPlaysItsOwnPatternsAndStaysSilentOnTicks() async {
        let line = RecordingLine(clock: clock)
        let horn = Buzzer(line: line, patterns: Signal.defaultHornPatterns, clock: clock, onFailure: failures.record)
        await horn.play(.tick)
        await horn.play(.prepTick)
        #expect(line.writes.isEmpty, "no blast for a tick")
        await horn.play(.finish) // 1000 on, 400 off, 1000 on, 400 off, 2000 on
        for t in [1000, 1400, 2400, 2800, 4800] {
            #expect(await eventually { clock.sleeping == 1 })
            clock.advance(to: ms(t))
        }
        #expect(await eventually { line.writes.count == 6 })
        #expect(line.writes == [on(0), off(1000), on(1400), off(2400), on(2800), off(4800)])
        await horn.play(.start) // 1500 on, cut short by the silence of shutdown
        #expect(await eventually { clock.sleeping == 1 })
        clock.advance(to: ms(5000))
        await horn.silence()
        #expect(line.writes.suffix(2) == [on(4800), off(5000)] && !line.isOn)
    }
}
