#if canImport(Glibc)
import Glibc
#endif
import ControlProtocol
import Foundation
import Panels
import Platform
import RoundClockCore
import Simulation
import Synchronization
import Testing
import TestSupport
@testable import RoundClockService

/// The session kept off the render loop (`StatePersistence` on a `BlockingWorker`): a slow
/// disk delays no display change, a directory that cannot be written stops nothing, and the
/// final save at shutdown is written before `finish` returns.
@Suite struct StatePersistenceTests {
    /// The writes a store made: when each began and ended, and the texts written.
    final class Writes: Sendable {
        private let state = Mutex((began: [MonotonicClock.Instant](), ended: [MonotonicClock.Instant](), texts: [String]()))
        var began: [MonotonicClock.Instant] { state.withLock { $0.began } }
        var ended: [MonotonicClock.Instant] { state.withLock { $0.ended } }
        var texts: [String] { state.withLock { $0.texts } }

        /// A store over `directory` whose every write takes `delay` longer (a slow fsync).
        func store(_ directory: String, delay: Duration) -> StateStore {
            StateStore(directory: directory) { text, path, temp, dir throws(SystemError) in
                let clock = MonotonicClock()
                self.state.withLock { $0.began.append(clock.now) }
                usleep(UInt32(delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000))
                try StateStore.durable(text, path, temp, dir)
                self.state.withLock {
                    $0.ended.append(clock.now)
                    $0.texts.append(text)
                }
            }
        }
    }

    /// Statuses reported, in order.
    final class Reports: Sendable {
        private let state = Mutex([ControlState.Persistence]())
        var all: [ControlState.Persistence] { state.withLock { $0 } }
        func note(_ status: ControlState.Persistence) { state.withLock { $0.append(status) } }
    }

    func quietBoard() -> BoardDisplay<EmulatedHT16K33> {
        BoardDisplay(specs: simulatorPanels, devices: simulatorPanels.map { EmulatedHT16K33(address: $0.address) }, powerChecks: nil)
    }

    /// START pressed: its save takes 2.5 s, and the second changes due 1 s and 2 s after the
    /// press (inside that save) are committed on time all the same. A save that held the loop
    /// would make the first of them at least 1.5 s late; a loaded machine may wake the loop's
    /// thread late by far less, so 1 s is the limit.
    @Test func aSaveSlowerThanTwoSecondsDelaysNoDisplayChange() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let writes = Writes()
        let saver = StateSaver(store: writes.store(dir.path, delay: .milliseconds(2500)), readings: try SystemReadings.system(),
                               logger: LogLines().logger())
        let persistence = StatePersistence(saver: saver, worker: try BlockingWorker())
        persistence.start()
        let clock = MonotonicClock()
        let eventLoop = try EventLoop(name: LoopThread.name)
        defer { eventLoop.finish() }
        let inbox = ButtonInbox<MonotonicClock.Instant>()
        let start = clock.now
        let recorder = Recorder()
        let loop = RenderLoop(waiter: EventLoopWaiter(clock: clock, loop: eventLoop), start: start, inbox: inbox, display: quietBoard(),
                              observer: Observers(members: [recorder], events: [persistence.observer(on: clock)]),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(start.advanced(by: .seconds(600))))
        let program = try Presets.countdown(.seconds(60))
        let task = Task { await loop.run(Controller(program: program)) }
        #expect(await eventually { !recorder.frames.isEmpty })
        let pressed = clock.now
        inbox.post(ButtonEvent(.start, .press, at: pressed))
        #expect(await eventually { recorder.frames.contains { $0.face.time.text == " 0:57" } }, "three seconds counted")
        #expect(await eventually { !writes.ended.isEmpty }, "the save was written")
        task.cancel()
        let final = await task.value
        await persistence.finish(final.session, at: clock.now)

        let began = try #require(writes.began.first), ended = try #require(writes.ended.first)
        #expect(began < pressed.advanced(by: .seconds(1)) && ended > pressed.advanced(by: .seconds(2)),
                "the save ran across the first two boundaries: \(pressed.duration(to: began)) to \(pressed.duration(to: ended))")
        for (k, text) in [(1, " 0:59"), (2, " 0:58"), (3, " 0:57")] {
            let frame = try #require(recorder.frames.first { $0.face.time.text == text })
            let late = frame.t - start.duration(to: pressed.advanced(by: .seconds(Int64(k))))
            #expect(late < .seconds(1), "\(text) committed \(late) after its deadline")
        }
        #expect(writes.texts.first?.contains("state=running\n") == true)
        #expect(try dir.read("state").contains("state=running\n"), "finish wrote the final session")
    }

    /// Changes coming faster than the disk: one write in progress, the newest waiting, those
    /// in between never written; `finish` returns once the final session is on disk.
    @Test func theNewestSessionIsWrittenAndFinishWaitsForIt() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let writes = Writes()
        let system = FakeSystem()
        let saver = StateSaver(store: writes.store(dir.path, delay: .milliseconds(300)), readings: system.readings, logger: LogLines().logger())
        let persistence = StatePersistence(saver: saver, worker: try BlockingWorker())
        persistence.start()
        let now = VirtualClock.Instant(offset: .seconds(10))
        var session = Session<VirtualClock.Instant>(program: Presets.tabata)
        persistence.keep(session, at: now)
        #expect(await eventually { !writes.began.isEmpty })
        for second in 1...20 {
            _ = session.start(at: now)
            _ = session.pause(at: now.advanced(by: .seconds(Int64(second))))
            persistence.keep(session, at: now.advanced(by: .seconds(Int64(second))))
        }
        await persistence.finish(session, at: now.advanced(by: .seconds(30)))
        #expect(writes.texts.count <= 3, "\(writes.texts.count) writes for 22 changes")
        let expected = StateFileFormat.encode(saver.snapshot(session, at: now.advanced(by: .seconds(30))))
        #expect(try dir.read("state") == expected)
        #expect(writes.texts.last == expected)
    }

    /// A state directory under a regular file cannot be made (ENOTDIR): one error line
    /// naming it and errno at start-up, the state reported off with the reason. Once the
    /// file is gone the retry makes the directory and writes the newest session by itself,
    /// with one info line, and the state is reported on.
    @Test func aDirectoryThatCannotBeMadeRecoversByItself() async throws {
        let parent = try TempDir()
        defer { parent.remove() }
        try parent.write("file", "in the way")
        let directory = "\(parent.path)/file/state"
        let log = LogLines(), reports = Reports()
        let saver = StateSaver(store: StateStore(directory: directory), readings: FakeSystem().readings, logger: log.logger())
        let persistence = StatePersistence(saver: saver, worker: try BlockingWorker(), retryInterval: .milliseconds(100), report: reports.note)
        persistence.start()
        #expect(!persistence.status.on)
        let line = try #require(log.all.first)
        #expect(line.hasPrefix("error: state: cannot save the session in \(directory): ") && line.contains("(errno 20)"), "\(line)")
        #expect(reports.all.count == 1 && reports.all.first?.on == false && reports.all.first?.reason?.contains("errno 20") == true,
                "\(reports.all)")
        var session = Session<VirtualClock.Instant>(program: Presets.tabata)
        _ = session.start(at: .init(offset: .seconds(1)))
        persistence.keep(session, at: .init(offset: .seconds(1)))

        unlink("\(parent.path)/file")
        #expect(await eventually { persistence.status.on }, "saving resumes without another change")
        #expect(try String(contentsOfFile: "\(directory)/state", encoding: .utf8).contains("state=running\n"))
        #expect(log.all.count == 2 && log.all.last == "info: state: saving in \(directory) works again\n", "\(log.all)")
        #expect(reports.all.map(\.on) == [false, true])
        await persistence.finish(session, at: .init(offset: .seconds(4)))
    }

    /// Writes that fail (EROFS, as on an SD card the kernel remounted read-only): one error
    /// line however many changes and retries fail, the newest session written once they work.
    @Test func failingWritesAreOneLineAndTheNewestIsWrittenLater() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let attempts = Mutex((count: 0, failing: true))
        let store = StateStore(directory: dir.path) { text, path, temp, directory throws(SystemError) in
            let failing = attempts.withLock { $0.count += 1; return $0.failing }
            if failing { throw SystemError(operation: "open", path: temp, errno: EROFS) }
            try StateStore.durable(text, path, temp, directory)
        }
        let log = LogLines(), reports = Reports()
        let persistence = StatePersistence(saver: StateSaver(store: store, readings: FakeSystem().readings, logger: log.logger()),
                                           worker: try BlockingWorker(), retryInterval: .milliseconds(20), report: reports.note)
        persistence.start()
        var session = Session<VirtualClock.Instant>(program: Presets.tabata)
        for second in 1...5 {
            _ = session.start(at: .init(offset: .seconds(Int64(second))))
            _ = session.pause(at: .init(offset: .seconds(Int64(second) + 1)))
            persistence.keep(session, at: .init(offset: .seconds(Int64(second) + 1)))
        }
        #expect(await eventually { attempts.withLock { $0.count } >= 8 }, "retried by itself")
        #expect(log.all == ["error: state: cannot save the session in \(dir.path): open \(dir.path)/.state.tmp: "
                            + "Read-only file system (errno 30); the clock runs on without keeping it\n"])
        #expect(reports.all == [ControlState.Persistence(on: true),
                                ControlState.Persistence(on: false, reason: "open \(dir.path)/.state.tmp: Read-only file system (errno 30)")])
        attempts.withLock { $0.failing = false }
        #expect(await eventually { persistence.status.on })
        #expect(try dir.read("state").contains("elapsed_before_ns=5000000000\n"), "the newest session: 5 s run")
        #expect(log.all.count == 2 && reports.all.count == 3)
        await persistence.finish(session, at: .init(offset: .seconds(7)))
    }

    /// A directory that works from the start: reported on once, no line.
    @Test func aWritableDirectoryIsReportedOn() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let log = LogLines(), reports = Reports()
        let saver = StateSaver(store: StateStore(directory: dir.path + "/new/state"), readings: FakeSystem().readings, logger: log.logger())
        let persistence = StatePersistence(saver: saver, worker: try BlockingWorker(), report: reports.note)
        persistence.start()
        await persistence.finish(Session<VirtualClock.Instant>(program: Presets.tabata), at: .init(offset: .zero))
        #expect(reports.all == [ControlState.Persistence(on: true)])
        #expect(log.all.isEmpty)
        #expect(try String(contentsOfFile: dir.path + "/new/state/state", encoding: .utf8).contains("state=ready\n"))
    }
}

/// `BlockingWorker`: one job per key, the newest; jobs due later wait for their instant.
@Suite struct BlockingWorkerTests {
    final class Ran: Sendable {
        private let state = Mutex([String]())
        var all: [String] { state.withLock { $0 } }
        func note(_ s: String) { state.withLock { $0.append(s) } }
    }

    @Test func aJobReplacesTheOneOfItsKeyNotYetStarted() async throws {
        let worker = try BlockingWorker()
        defer { worker.stop() }
        let ran = Ran()
        let gate = Mutex(false)
        worker.post("block") { while !gate.withLock({ $0 }) { usleep(1000) } }
        for n in 1...5 { worker.post("a") { ran.note("a\(n)") } }
        worker.post("b") { ran.note("b") }
        worker.post("a") { ran.note("a6") }
        gate.withLock { $0 = true }
        await worker.drain()
        #expect(ran.all == ["a6", "b"], "one job per key, in the order the keys were queued")
    }

    @Test func aJobDueLaterWaitsAndAnImmediateOneOfItsKeyRunsAtOnce() async throws {
        let worker = try BlockingWorker()
        defer { worker.stop() }
        let ran = Ran()
        worker.post("retry", after: .seconds(3600)) { ran.note("late") }
        await worker.drain()
        #expect(ran.all.isEmpty, "not due for an hour")
        worker.post("retry") { ran.note("now") }
        await worker.drain()
        #expect(ran.all == ["now"])
        worker.post("soon", after: .milliseconds(50)) { ran.note("soon") }
        #expect(await eventually { ran.all == ["now", "soon"] })
    }
}

/// A state file whose anchor no clock can have written is set aside like any corrupt file,
/// never resumed as a round long over.
@Suite struct ImpossibleAnchorTests {
    static let resolve: @Sendable (String) -> Program? = { try? ProgramSpec.parse($0) }

    @Test(arguments: [
        // CLOCK_BOOTTIME at the save would be about -292 years.
        ("anchor_boottime_ns=-9223372036854775807", "anchor_realtime_ns=1795000000000000000", "CLOCK_BOOTTIME at the save would be negative"),
        // Running 200 years at the save.
        ("anchor_boottime_ns=0", "anchor_realtime_ns=-4512384000000000000", "longer than a session can run"),
        // The anchor a year after the save.
        ("anchor_boottime_ns=1000000000000", "anchor_realtime_ns=1826536000000000000", "after the save"),
    ])
    func impossibleAnchorIsSetAside(_ boot: String, _ real: String, _ why: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let system = FakeSystem()
        try dir.write("state", "roundclock-state 1\nprogram=boxing\nstate=running\nelapsed_before_ns=0\nboot_id=\(system.bootID)\n"
                      + "\(boot)\n\(real)\nsaved_realtime_ns=1795000001000000000\n")
        let log = LogLines()
        let saver = StateSaver(store: StateStore(directory: dir.path), readings: system.readings, logger: log.logger())
        let (session, outcome) = saver.restore(now: VirtualClock.Instant(offset: .zero), fallback: Presets.tabata,
                                               resumeAfterReboot: true, resolve: Self.resolve)
        #expect(outcome == nil && session.program == Presets.tabata && session.state(at: .init(offset: .zero)) == .ready)
        #expect(dir.entries == ["state.corrupt-20261118T110640Z"])
        #expect(log.all.count == 1 && log.all[0].contains("corrupt (") && log.all[0].contains(why), "\(log.all)")
    }

    /// What the clock writes passes the check: an anchor before this boot (resumed by wall
    /// time), a wall clock near 1970, an adopted start a little ahead.
    @Test(arguments: [(since: 100, boottime: 30, realtime: 1_795_000_000), (since: 100, boottime: 500, realtime: 60),
                      (since: -3600, boottime: 20, realtime: 1_795_000_000), (since: 0, boottime: 0, realtime: 0)])
    func anchorsAClockWritesPass(since: Int64, boottime: Int64, realtime: Int64) throws {
        let saved = SavedSession(program: "boxing", runState: .running, elapsedBefore: .seconds(3), bootID: "ab",
                                 anchorBoottime: .seconds(boottime - since), anchorRealtime: .seconds(realtime - since),
                                 savedRealtime: .seconds(realtime))
        try StateFileFormat.checkAnchor(try StateFileFormat.decode(StateFileFormat.encode(saved)))
    }
}

/// The frames file written on the worker: the loop formats the lines, the worker writes them,
/// and `finish` waits for every line, in order, before it closes the file.
@Suite struct FramesOnTheWorkerTests {
    func boxingFrames(worker: BlockingWorker?) async throws -> String {
        let dir = try TempDir()
        defer { dir.remove() }
        let path = "\(dir.path)/frames.jsonl"
        let recorder = try FramesRecorder(path: path, decimals: 3)
        if let worker { recorder.write(on: worker) }
        let clock = VirtualClock()
        let start = clock.now
        var controller = Controller<VirtualClock.Instant>(program: Presets.boxing)
        let pending = controller.perform(.start, at: start)
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, display: emulatedBoard(), observer: Observers(recorder),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(start.advanced(by: .seconds(200))),
                              endWhenIdle: true)
        await loop.run(controller, pending: pending)
        try await recorder.finish()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func theWorkerWritesEveryLineInOrderAsTheLoopWouldHave() async throws {
        let worker = try BlockingWorker()
        defer { worker.stop() }
        let onTheWorker = try await boxingFrames(worker: worker)
        let onTheLoop = try await boxingFrames(worker: nil)
        #expect(onTheWorker.split(separator: "\n").count > 200, "200 s of a boxing round and its signals")
        #expect(onTheWorker == onTheLoop)
    }
}
