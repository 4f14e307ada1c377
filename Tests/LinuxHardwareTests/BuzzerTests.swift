#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import RoundClockCore
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport
@testable import LinuxHardware

/// The buzzer's output line in a test: records each level written, with the clock's time.
final class RecordingLine: OutputLine, Sendable {
    struct Write: Equatable, CustomStringConvertible {
        var on: Bool
        var at: Duration
        var description: String { "\(on ? "on" : "off")@\(at)" }
    }
    private let clock: ManualClock
    private let state = Mutex((writes: [Write](), failWith: Int32?.none))

    init(clock: ManualClock) { self.clock = clock }

    var writes: [Write] { state.withLock { $0.writes } }
    /// The level the line is at: off until written.
    var isOn: Bool { writes.last?.on ?? false }
    /// Makes every write fail with `errno` (nil: work again).
    func fail(with errno: Int32?) { state.withLock { $0.failWith = errno } }

    func set(_ on: Bool) throws(SystemError) {
        let at = clock.now.offset
        let failure = state.withLock { s -> Int32? in
            if s.failWith == nil { s.writes.append(Write(on: on, at: at)) }
            return s.failWith
        }
        if let failure { throw SystemError(device: "/dev/gpiochip0:18", operation: "set value", errno: failure) }
    }
}

/// The errors a buzzer reported.
final class FailureLog: Sendable {
    private let errors = Mutex([SystemError]())
    var all: [SystemError] { errors.withLock { $0 } }
    func record(_ error: SystemError) { errors.withLock { $0.append(error) } }
}

@Suite struct BuzzerTests {
    typealias Write = RecordingLine.Write
    let clock = ManualClock()
    let line: RecordingLine
    let failures = FailureLog()
    let buzzer: Buzzer

    init() {
        line = RecordingLine(clock: clock)
        var patterns = Signal.defaultBuzzerPatterns
        patterns[.end] = [] // config `end_ms = 0`: silent
        buzzer = Buzzer(line: line, patterns: patterns, clock: clock, onFailure: failures.record)
    }

    func ms(_ n: Int) -> Duration { .milliseconds(n) }
    func on(_ t: Int) -> Write { Write(on: true, at: ms(t)) }
    func off(_ t: Int) -> Write { Write(on: false, at: ms(t)) }

    /// Waits until the pattern task sleeps on the clock (mid-step).
    func waitUntilSleeping() async { #expect(await eventually { clock.sleeping == 1 }, "the pattern waits for its next step") }

    /// Plays the clock forward through `steps`, waiting at each for the buzzer to reach it.
    func advance(through steps: [Int]) async {
        for t in steps {
            await waitUntilSleeping()
            clock.advance(to: ms(t))
        }
    }

    @Test func warningPlaysOnOffStepsWithExactDurations() async {
        await buzzer.play(.warning) // 150 on, 100 off, 150 on, 100 off, 150 on
        await advance(through: [150, 250, 400, 500, 650])
        #expect(await eventually { line.writes.count == 6 })
        #expect(line.writes == [on(0), off(150), on(250), off(400), on(500), off(650)])
        #expect(clock.sleeping == 0, "nothing left playing")
    }

    @Test func silentSignalMidBeepSwitchesTheLineOff() async {
        clock.advance(to: ms(1000))
        await buzzer.play(.warning)
        await advance(through: [1150, 1250])
        await waitUntilSleeping() // in the second beep
        #expect(line.isOn)
        clock.advance(to: ms(1300))
        await buzzer.play(.end) // end_ms = 0
        #expect(!line.isOn, "a silent signal ends the beep")
        #expect(line.writes == [on(1000), off(1150), on(1250), off(1300)])
        clock.advance(to: ms(5000))
        await buzzer.silence() // returns once the cut pattern's task has ended
        #expect(line.writes.count == 4, "the cut pattern never writes again")
        #expect(clock.sleeping == 0)
    }

    @Test func aNewSignalCutsTheBellShortAndPlaysInFull() async {
        await buzzer.play(.start) // 600 on
        await waitUntilSleeping()
        clock.advance(to: ms(100))
        await buzzer.play(.prepTick) // 150 on
        await advance(through: [250])
        #expect(await eventually { line.writes.count == 4 })
        clock.advance(to: ms(900)) // past where the bell would have ended
        await buzzer.silence() // returns once both pattern tasks have ended
        #expect(line.writes == [on(0), off(100), on(100), off(250)])
        #expect(!line.isOn)
    }

    @Test func silenceMidBeepSwitchesTheLineOff() async {
        await buzzer.play(.finish) // 500 on, 200 off, 500 on, ...
        await advance(through: [500, 700])
        await waitUntilSleeping()
        clock.advance(to: ms(800))
        await buzzer.silence()
        #expect(line.writes == [on(0), off(500), on(700), off(800)])
        #expect(clock.sleeping == 0, "the pattern task has ended")
    }

    @Test func aFailingLineIsReportedOnceAndTheBuzzerKeepsGoing() async {
        line.fail(with: EIO)
        await buzzer.play(.start)
        await advance(through: [800])
        await buzzer.play(.prepTick)
        await advance(through: [950])
        await buzzer.silence()
        let reported = failures.all
        #expect(reported == [SystemError(device: "/dev/gpiochip0:18", operation: "set value", errno: EIO)], "once, not per write")
        #expect(reported.first?.description == "/dev/gpiochip0:18: set value failed: Input/output error (errno 5)")

        line.fail(with: nil) // the line works again: made sure it is off, then the next beep plays
        await buzzer.play(.prepTick)
        await advance(through: [1100])
        #expect(await eventually { line.writes.count == 3 })
        #expect(line.writes == [off(950), on(950), off(1100)])
        line.fail(with: ENODEV) // and fails again: reported again
        await buzzer.play(.start)
        #expect(await eventually { failures.all.map(\.errno) == [EIO, ENODEV] })
        await buzzer.silence()
    }

    @Test func buzzerServicePlaysPostedSignalsAndSilencesOnShutdown() async throws {
        let service = BuzzerService(buzzer: buzzer)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let running = Task { try await group.run() }
        service.post(.start)
        await waitUntilSleeping()
        #expect(line.writes == [on(0)], "the bell rings")
        clock.advance(to: ms(300))
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(line.writes == [on(0), off(300)], "shutdown switches it off")
        #expect(clock.sleeping == 0)
    }

    @Test func buzzerServiceCancelledMidBeepLeavesTheLineOff() async {
        let service = BuzzerService(buzzer: buzzer)
        let running = Task { await service.run() }
        service.post(.finish)
        await waitUntilSleeping()
        running.cancel()
        await running.value
        #expect(!line.isOn && line.writes == [on(0), off(0)])
    }
}
