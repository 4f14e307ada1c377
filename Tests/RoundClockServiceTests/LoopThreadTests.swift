#if canImport(Glibc)
import Glibc
#endif
import I2C
import Panels
import Platform
import RoundClockCore
import Simulation
import Synchronization
import Testing
import TestSupport
@testable import RoundClockService

/// The render loop on the real clock, waiting on an event loop (`EventLoopWaiter`), runs on
/// that loop's thread and sleeps there in one timed wait on the absolute deadline.
@Suite struct LoopThreadTests {
    /// The real clock's waiter on an event loop named as `run`'s; the caller finishes the loop.
    func eventLoopWaiter<C: MonotonicDeadlineClock & Sendable>(_ clock: C) throws -> EventLoopWaiter<C> {
        EventLoopWaiter(clock: clock, loop: try EventLoop(name: LoopThread.name))
    }

    /// The simulator board without power-loss checks: the loop wakes only for changes.
    func quietBoard() -> BoardDisplay<EmulatedHT16K33> {
        BoardDisplay(specs: simulatorPanels, devices: simulatorPanels.map { EmulatedHT16K33(address: $0.address) }, powerChecks: nil)
    }

    @Test func aPostedButtonCutsAFarSleepShort() async throws {
        let recorder = ThreadRecorder()
        let clock = MonotonicClock()
        let waiter = try eventLoopWaiter(clock)
        defer { waiter.loop.finish() }
        let inbox = ButtonInbox<MonotonicClock.Instant>()
        let start = clock.now
        // Ready, no power checks: the only deadline is the stop instant, an hour away.
        let loop = RenderLoop(waiter: waiter, start: start, inbox: inbox, display: quietBoard(), observer: Observers(recorder),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(start.advanced(by: .seconds(3600))))
        let task = Task { await loop.run(Controller(program: Presets.boxing)) }
        defer { task.cancel() }
        #expect(await eventually { !recorder.frames.isEmpty })
        inbox.post(ButtonEvent(.start, .press, at: clock.now))
        #expect(await eventually { recorder.frames.last?.status.state == .running })
        #expect(start.duration(to: clock.now) < .seconds(600), "woken by the button, not by the deadline an hour away")
        #expect(Set(recorder.threadNames) == [LoopThread.name], "every commit made on the loop's own thread")
    }

    @Test func cancellationEndsTheLoopOnItsThread() async throws {
        let clock = MonotonicClock()
        let waiter = try eventLoopWaiter(clock)
        defer { waiter.loop.finish() }
        let recorder = ThreadRecorder()
        let loop = RenderLoop(waiter: waiter, start: clock.now, display: quietBoard(), observer: Observers(recorder),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .never)
        let ended = Mutex(false)
        // Ready with nothing scheduled and no way to stop: only cancellation ends it.
        let task = Task {
            let final = await loop.run(Controller(program: Presets.boxing))
            ended.withLock { $0 = true }
            return final
        }
        #expect(await eventually { !recorder.frames.isEmpty })
        #expect(recorder.threadNames == [LoopThread.name])
        task.cancel()
        #expect(await eventually { ended.withLock { $0 } }, "cancellation ends a loop waiting with no deadline")
    }

    @Test func theBoardIsWrittenOnTheLoopThread() async throws {
        let writes = ThreadLog()
        let devices = simulatorPanels.map { ThreadNotingDevice(address: $0.address, writes: writes) }
        let display = BoardDisplay(specs: simulatorPanels, devices: devices, readBack: false, powerChecks: nil)
        let clock = MonotonicClock()
        let waiter = try eventLoopWaiter(clock)
        defer { waiter.loop.finish() }
        let start = clock.now
        let loop = RenderLoop(waiter: waiter, start: start, display: display, observer: Observers(ThreadRecorder()),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(start.advanced(by: .seconds(1))))
        var controller = Controller<MonotonicClock.Instant>(program: try Presets.countdown(.seconds(60)))
        _ = controller.perform(.start, at: start)
        _ = await loop.run(controller)
        let names = writes.names
        #expect(!names.isEmpty)
        #expect(Set(names) == [LoopThread.name], "the display actor's code ran on the loop's thread, no hop to another")
    }

    @Test func aLateWakeUpDoesNotShiftLaterDeadlines() async throws {
        let clock = HeldBackClock(hold: .milliseconds(1300))
        let waiter = try eventLoopWaiter(clock)
        defer { waiter.loop.finish() }
        let recorder = ThreadRecorder()
        let start = clock.now
        let loop = RenderLoop(waiter: waiter, start: start, display: quietBoard(), observer: Observers(recorder),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(start.advanced(by: .seconds(5))))
        var controller = Controller<MonotonicClock.Instant>(program: try Presets.countdown(.seconds(60)))
        _ = controller.perform(.start, at: start)
        _ = await loop.run(controller)
        // The first wake-up (due at 1 s) was held back 1.3 s; the loop then waits for 3 s,
        // 4 s, 5 s after the anchor exactly, not for 1.3 s later than each.
        let deadlines = clock.deadlines.compactMap { $0.map { start.duration(to: $0) } }
        #expect(deadlines.first == .seconds(1))
        #expect(deadlines.suffix(3) == [.seconds(3), .seconds(4), .seconds(5)])
        #expect(deadlines.allSatisfy { $0.components.attoseconds == 0 }, "every deadline on the whole-second grid: \(deadlines)")
        #expect(recorder.frames.last?.face.time.text == " 0:55", "the true value at the stop instant")
    }
}

/// An I2C device that accepts every write and notes the thread it was made on.
struct ThreadNotingDevice: I2CDevice {
    let name = "thread-noting"
    let address: UInt8
    let writes: ThreadLog
    func sendByte(_ byte: UInt8) throws(I2CError) { writes.note() }
    func writeBlock(register: UInt8, _ bytes: [UInt8]) throws(I2CError) { writes.note() }
}

/// Names of the threads something happened on, in order.
final class ThreadLog: Sendable {
    private let state = Mutex([String]())
    var names: [String] { state.withLock { $0 } }
    func note() {
        let thread = ThreadRecorder.threadName()
        state.withLock { $0.append(thread) }
    }
}

/// Records the committed frames and the name of the thread each was committed on.
final class ThreadRecorder: DisplayObserver {
    private let state = Mutex((frames: [Recorder.Entry](), threads: [String]()))
    var frames: [Recorder.Entry] { state.withLock { $0.frames } }
    var threadNames: [String] { state.withLock { $0.threads } }
    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        let name = Self.threadName()
        state.withLock {
            $0.frames.append(Recorder.Entry(t: t, face: face, panels: panels, status: status))
            $0.threads.append(name)
        }
    }
    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {}

    /// /proc/thread-self/comm, without its line break.
    static func threadName() -> String {
        guard let bytes = try? SmallFiles.read("/proc/thread-self/comm", limit: 64) else { return "?" }
        return String(decoding: bytes, as: UTF8.self).trimmed
    }
}

/// `MonotonicClock` whose loop thread is held back `hold` after its first timed wake-up
/// (a late wake-up, as a busy machine makes one), and which records every deadline waited for.
final class HeldBackClock: MonotonicDeadlineClock {
    typealias Instant = MonotonicClock.Instant
    let base = MonotonicClock()
    let hold: Duration
    private let state = Mutex((deadlines: [Instant?](), held: false))

    init(hold: Duration) { self.hold = hold }

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }
    var deadlines: [Instant?] { state.withLock { $0.deadlines } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await base.sleep(until: deadline, tolerance: tolerance)
    }

    func monotonicReading(of instant: Instant) -> Duration { base.monotonicReading(of: instant) }

    func loopWoke(waitingFor deadline: Instant?) {
        let holdNow = state.withLock { s -> Bool in
            s.deadlines.append(deadline)
            defer { s.held = s.held || deadline != nil }
            return !s.held && deadline != nil
        }
        guard holdNow else { return }
        // The injected fault itself (the loop thread kept busy), not a wait for an event.
        let until = now.advanced(by: hold)
        while now < until { usleep(1_000) }
    }
}
