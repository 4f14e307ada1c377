import Foundation
import Logging
import Platform
import RoundClockCore
import Synchronization
import Testing
@testable import RoundClockService

/// Readings of a pretend system whose clocks tests set by hand.
final class FakeSystem: Sendable {
    let clocks = Mutex((boottime: Duration.seconds(1000), realtime: Duration.seconds(1_795_000_000), synced: true))
    let bootID: String
    init(bootID: String = "6f1c0d52-3f7a-4c55-9a4e-1b0e2f9d7c21") { self.bootID = bootID }
    var readings: SystemReadings {
        SystemReadings(bootID: bootID, boottime: { self.clocks.withLock { $0.boottime } },
                       realtime: { self.clocks.withLock { $0.realtime } }, clockSynchronized: { self.clocks.withLock { $0.synced } })
    }
    func advance(_ d: Duration) { clocks.withLock { $0.boottime += d; $0.realtime += d } }
}

@Suite struct StateFileFormatTests {
    let running = SavedSession(program: "10 x 0:45/0:15, prep 0:10", runState: .running, elapsedBefore: .milliseconds(12_345),
                               bootID: "6f1c0d52-3f7a-4c55-9a4e-1b0e2f9d7c21", anchorBoottime: .nanoseconds(123_456_789_012),
                               anchorRealtime: .nanoseconds(1_795_000_000_123_456_789), savedRealtime: .seconds(1_795_000_100))

    @Test func roundTrips() throws {
        let paused = SavedSession(program: "weird \\ name\nx", runState: .paused, elapsedBefore: .seconds(3), bootID: "ab-12", savedRealtime: .seconds(5))
        let ready = SavedSession(program: "boxing", runState: .ready, elapsedBefore: .zero, bootID: "ab", savedRealtime: .zero)
        for saved in [running, paused, ready] {
            #expect(try StateFileFormat.decode(StateFileFormat.encode(saved)) == saved)
        }
        #expect(StateFileFormat.encode(running) == """
            roundclock-state 1
            program=10 x 0:45/0:15, prep 0:10
            state=running
            elapsed_before_ns=12345000000
            boot_id=6f1c0d52-3f7a-4c55-9a4e-1b0e2f9d7c21
            anchor_boottime_ns=123456789012
            anchor_realtime_ns=1795000000123456789
            saved_realtime_ns=1795000100000000000

            """)
        #expect(StateFileFormat.encode(paused).contains("program=weird \\\\ name\\nx\n"))
    }

    @Test(arguments: [
        ("", "corrupt (truncated: no final line break)"),
        ("roundclock-state 1\nprogram=boxing", "corrupt (truncated: no final line break)"),
        ("{\"program\": \"boxing\"}\n", "foreign (first line is not \"roundclock-state N\")"),
        ("roundclock-state 2\nprogram=boxing\n", "foreign (version 2; this roundclock reads version 1)"),
        ("roundclock-state 1\nprogram=boxing\n", "corrupt (\"state\" is missing)"),
        ("roundclock-state 1\nprogram boxing\n", "corrupt (line 2: no '=')"),
        ("roundclock-state 1\ncolour=red\n", "corrupt (line 2: unknown key \"colour\")"),
        ("roundclock-state 1\nprogram=a\nprogram=b\n", "corrupt (line 3: \"program\" appears twice)"),
        ("roundclock-state 1\nprogram=boxing\nstate=sleeping\n", "corrupt (\"state\" is \"sleeping\"; expected ready, running or paused)"),
        ("roundclock-state 1\nprogram=boxing\nstate=paused\nelapsed_before_ns=-5\nboot_id=ab\nsaved_realtime_ns=1\n", "corrupt (\"elapsed_before_ns\" is \"-5\"; expected nanoseconds, a whole number from 0 to 3162240000000000000)"),
        ("roundclock-state 1\nprogram=boxing\nstate=running\nelapsed_before_ns=0\nboot_id=ab\nsaved_realtime_ns=1\n", "corrupt (a running session needs anchor_boottime_ns and anchor_realtime_ns)"),
        ("roundclock-state 1\nprogram=boxing\nstate=ready\nelapsed_before_ns=7\nboot_id=ab\nsaved_realtime_ns=1\n", "corrupt (state ready with elapsed_before_ns 7)"),
        ("roundclock-state 1\nprogram=boxing\nstate=ready\nelapsed_before_ns=0\nboot_id=not a uuid\nsaved_realtime_ns=1\n", "corrupt (\"boot_id\" is \"not a uuid\")"),
        ("roundclock-state 1\nprogram=a\\qb\nstate=ready\n", "corrupt (bad escape in \"program\")"),
    ])
    func rejects(_ text: String, _ expected: String) {
        #expect(throws: StateFileError.self) { try StateFileFormat.decode(text) }
        do { _ = try StateFileFormat.decode(text) } catch { #expect(error.description == expected) }
    }
}

@Suite struct StateStoreTests {
    let saved = SavedSession(program: "tabata", runState: .paused, elapsedBefore: .seconds(42), bootID: "ab", savedRealtime: .seconds(1))

    @Test func atomicWriteLeavesOnlyTheStateFile() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let store = StateStore(directory: dir.path + "/")
        #expect(try store.readText() == nil, "no file yet")
        try store.save(saved)
        var changed = saved
        changed.elapsedBefore = .seconds(43)
        try store.save(changed)
        #expect(dir.entries == ["state"], "no temp file left behind")
        #expect(try StateFileFormat.decode(try #require(try store.readText())) == changed)
        #expect(store.path == dir.path + "/state")
    }

    @Test func staleTempFileIsReplaced() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try dir.write(".state.tmp", "half-written garbage from a crash, longer than the real thing ..................")
        let store = StateStore(directory: dir.path)
        try store.save(saved)
        #expect(dir.entries == ["state"])
        #expect(try StateFileFormat.decode(try dir.read("state")) == saved)
    }

    @Test func errorsNameStepPathAndErrno() throws {
        let store = StateStore(directory: "/nonexistent/roundclock")
        #expect(throws: SystemError(operation: "open", path: "/nonexistent/roundclock/.state.tmp", errno: ENOENT)) { try store.save(saved) }
        let error = SystemError(operation: "open", path: "/x", errno: ENOENT)
        #expect(error.description == "open /x: No such file or directory (errno 2)")
        #expect(try store.readText() == nil, "ENOENT on read means no saved state")
    }

    @Test func failedRenameRemovesTempFile() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/state", withIntermediateDirectories: false)
        try dir.write("state/keep", "x")   // a non-empty directory where the file should be
        #expect(throws: SystemError.self) { try StateStore(directory: dir.path).save(saved) }
        #expect(dir.entries == ["state"], "temp file removed after the failed rename")
    }

    @Test func setAsideRenamesWithUTCTimestamp() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try dir.write("state", "junk")
        let target = try StateStore(directory: dir.path).setAside(realtime: .seconds(1_795_000_000))
        #expect(target == dir.path + "/state.corrupt-20261118T110640Z")
        #expect(dir.entries == ["state.corrupt-20261118T110640Z"])
    }

    @Test func twoSetAsideWithinOneSecondAreBothKept() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let store = StateStore(directory: dir.path)
        try dir.write("state", "first junk")
        _ = try store.setAside(realtime: .seconds(1_795_000_000))
        try dir.write("state", "second junk")
        let second = try store.setAside(realtime: .seconds(1_795_000_000) + .milliseconds(400))
        #expect(second == dir.path + "/state.corrupt-20261118T110640Z-2")
        #expect(dir.entries.sorted() == ["state.corrupt-20261118T110640Z", "state.corrupt-20261118T110640Z-2"])
        #expect(try String(contentsOfFile: dir.path + "/state.corrupt-20261118T110640Z", encoding: .utf8) == "first junk")
    }

    @Test func bootIDOfThisSystem() throws {
        let id = try SystemReadings.readBootID()
        #expect(id.count == 36 && id.allSatisfy { $0.isHexDigit || $0 == "-" })
        #expect(throws: SystemError.self) { try SystemReadings.readBootID(path: "/nonexistent") }
        let mono = SystemReadings.clockReading(CLOCK_MONOTONIC)
        let boot = SystemReadings.clockReading(CLOCK_BOOTTIME)
        #expect(boot >= mono, "CLOCK_BOOTTIME includes suspend")
        #expect(ClockSync.isSynchronized(flag: "/nonexistent/synchronized") == false)
        #expect(ClockSync.isSynchronized(flag: "/proc/self") == true)
    }
}

@Suite struct StateSaverTests {
    func resolve(_ name: String) -> Program? { try? ProgramSpec.parse(name) }

    @Test func saveThenRestoreSameBoot() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let system = FakeSystem()
        let log = LogLines()
        let saver = StateSaver(store: StateStore(directory: dir.path), readings: system.readings, logger: log.logger())
        let clock = VirtualClock()
        var session = Session<VirtualClock.Instant>(program: Presets.boxing)
        session.start(at: clock.now)
        clock.advance(by: .seconds(30)); system.advance(.seconds(30))
        #expect(saver.save(session, at: clock.now))

        // "kill -9", 45 s later a new process with a fresh clock.
        system.advance(.seconds(45))
        let fresh = VirtualClock(start: .init(offset: .seconds(7)))
        let (restored, outcome) = saver.restore(now: fresh.now, fallback: Presets.tabata, resumeAfterReboot: false, resolve: resolve)
        #expect(outcome == .sameBoot)
        #expect(restored.elapsed(at: fresh.now) == .seconds(75))
        #expect(log.all == ["info: state: boxing resumed exactly (same boot)\n"])
    }

    @Test func rebootUnsyncedComesUpReadyWithLastProgram() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let before = FakeSystem(bootID: "aaaa")
        var session = Session<VirtualClock.Instant>(program: Presets.mma)
        session.start(at: .init(offset: .zero))
        _ = StateSaver(store: StateStore(directory: dir.path), readings: before.readings, logger: LogLines().logger())
            .save(session, at: .init(offset: .seconds(20)))
        let after = FakeSystem(bootID: "bbbb")
        after.clocks.withLock { $0.synced = false; $0.boottime = .seconds(9); $0.realtime += .seconds(120) }
        let log = LogLines()
        let (restored, outcome) = StateSaver(store: StateStore(directory: dir.path), readings: after.readings, logger: log.logger())
            .restore(now: VirtualClock.Instant(offset: .zero), fallback: Presets.tabata, resumeAfterReboot: true, resolve: resolve)
        #expect(restored.program == Presets.mma && restored.state(at: .init(offset: .zero)) == .ready)
        #expect(outcome == .ready("rebooted and the system clock is not synchronized"))
        #expect(log.all == ["info: state: mma ready with the last program: rebooted and the system clock is not synchronized\n"])
    }

    @Test(arguments: [
        ("garbage\n", "foreign (first line is not \"roundclock-state N\")"),
        ("roundclock-state 9\n", "foreign (version 9; this roundclock reads version 1)"),
        ("roundclock-state 1\nprogram=boxing\nstate=runn", "corrupt (truncated: no final line break)"),
        ("roundclock-state 1\nprogram=sparring\nstate=ready\nelapsed_before_ns=0\nboot_id=ab\nsaved_realtime_ns=1\n", "names an unknown program \"sparring\""),
    ])
    func corruptOrForeignIsSetAside(_ text: String, _ why: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try dir.write("state", text)
        let system = FakeSystem()
        let log = LogLines()
        let saver = StateSaver(store: StateStore(directory: dir.path), readings: system.readings, logger: log.logger())
        let (session, outcome) = saver.restore(now: VirtualClock.Instant(offset: .zero), fallback: Presets.tabata, resumeAfterReboot: true, resolve: resolve)
        #expect(session.program == Presets.tabata && outcome == nil)
        let aside = "state.corrupt-20261118T110640Z"
        #expect(dir.entries == [aside])
        #expect(try dir.read(aside) == text, "kept for inspection")
        #expect(log.all == ["warning: state: \(dir.path)/state \(why); set aside as \(dir.path)/\(aside)\n"])
        // The next save starts a fresh file.
        #expect(saver.save(session, at: .init(offset: .zero)))
        #expect(dir.entries == ["state", aside])
    }

    @Test func noFileStartsWithFallback() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let log = LogLines()
        let (session, outcome) = StateSaver(store: StateStore(directory: dir.path), readings: FakeSystem().readings, logger: log.logger())
            .restore(now: VirtualClock.Instant(offset: .zero), fallback: Presets.tabata, resumeAfterReboot: true, resolve: resolve)
        #expect(session.program == Presets.tabata && outcome == nil && dir.entries.isEmpty)
        #expect(log.all == ["info: state: no saved session in \(dir.path); starting ready with tabata\n"])
    }

    @Test func saveFailureIsLoggedNotFatal() {
        let log = LogLines()
        let saver = StateSaver(store: StateStore(directory: "/nonexistent/rc"), readings: FakeSystem().readings, logger: log.logger())
        #expect(!saver.save(Session<VirtualClock.Instant>(program: Presets.boxing), at: .init(offset: .zero)))
        #expect(log.all == ["error: state: cannot save: open /nonexistent/rc/.state.tmp: No such file or directory (errno 2)\n"])
    }
}
