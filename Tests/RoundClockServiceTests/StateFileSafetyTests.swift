import Foundation
import RoundClockCore
import Testing
@testable import RoundClockService

/// Whatever the state file holds or is, `run` never traps or blocks
/// on it: the session comes back valid, or the file is set aside (kept for inspection).
@Suite struct UnusableStateFileTests {
    func resolve(_ name: String) -> Program? { try? ProgramSpec.parse(name) }

    /// Restores from `dir` and checks the file went aside under its timestamped name.
    func expectSetAside(_ dir: TempDir, because why: String) {
        let log = LogLines()
        let saver = StateSaver(store: StateStore(directory: dir.path), readings: FakeSystem().readings, logger: log.logger())
        let (session, outcome) = saver.restore(now: VirtualClock.Instant(offset: .zero), fallback: Presets.tabata,
                                               resumeAfterReboot: true, resolve: resolve)
        #expect(session.program == Presets.tabata && outcome == nil)
        let aside = "state.corrupt-20261118T110640Z"
        #expect(dir.entries == [aside], "set aside, not left for the next save to overwrite")
        #expect(log.all == ["warning: state: \(dir.path)/state unreadable (\(why)); set aside as \(dir.path)/\(aside)\n"])
        #expect(saver.save(session, at: .init(offset: .zero)))
        #expect(dir.entries == ["state", aside])
    }

    @Test func notUTF8IsSetAside() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try Data([0x72, 0x6f, 0xff, 0xfe, 0x0a]).write(to: URL(fileURLWithPath: "\(dir.path)/state"))
        expectSetAside(dir, because: "not UTF-8 text")
    }

    @Test func over64KiBIsSetAside() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try dir.write("state", "roundclock-state 1\n" + String(repeating: "x", count: 70_000) + "\n")
        expectSetAside(dir, because: "larger than 64 KiB")
    }

    @Test func symlinkToDevZeroIsSetAsideWithoutReadingIt() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        #expect(symlink("/dev/zero", "\(dir.path)/state") == 0)
        expectSetAside(dir, because: "is a symbolic link, not a regular file")
    }

    @Test func fifoIsSetAsideWithoutBlocking() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        #expect(mkfifo("\(dir.path)/state", 0o600) == 0)
        expectSetAside(dir, because: "is a FIFO (named pipe), not a regular file")
    }

    @Test func directoryNamedStateIsSetAside() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        #expect(mkdir("\(dir.path)/state", 0o755) == 0)
        expectSetAside(dir, because: "is a directory, not a regular file")
    }

    /// Numbers past what a session can hold, or past Int64.
    @Test(arguments: [
        ("elapsed_before_ns=9223372036854775807", "state=paused"),
        ("elapsed_before_ns=9223372036854775808", "state=paused"),
        ("elapsed_before_ns=3162240000000000001", "state=paused"), // SavedSession.longestElapsed (100 years) + 1 ns
        ("elapsed_before_ns=+5", "state=paused"),
    ])
    func outOfRangeElapsedIsSetAside(_ elapsed: String, _ state: String) throws {
        #expect(SavedSession.longestElapsed == .nanoseconds(3_162_240_000_000_000_000))
        let dir = try TempDir()
        defer { dir.remove() }
        try dir.write("state", "roundclock-state 1\nprogram=boxing\n\(state)\n\(elapsed)\nboot_id=ab\nsaved_realtime_ns=1\n")
        let saver = StateSaver(store: StateStore(directory: dir.path), readings: FakeSystem().readings, logger: LogLines().logger())
        let (session, outcome) = saver.restore(now: VirtualClock.Instant(offset: .zero), fallback: Presets.tabata,
                                               resumeAfterReboot: true, resolve: resolve)
        #expect(session.program == Presets.tabata && outcome == nil)
        #expect(dir.entries == ["state.corrupt-20261118T110640Z"])
    }

    /// Anchors far in the past (a huge CLOCK_BOOTTIME or CLOCK_REALTIME now, an anchor of 0):
    /// the time since the anchor is clamped, so a timed program shows DONE and a stopwatch
    /// a bounded running time, never centuries of arithmetic.
    @Test func anchorCenturiesAgoIsClamped() {
        let saved = SavedSession(program: "boxing", runState: .running, elapsedBefore: .seconds(5), bootID: "ab",
                                 anchorBoottime: .zero, anchorRealtime: .zero, savedRealtime: .zero)
        let now = VirtualClock.Instant(offset: .zero)
        for bootID in ["ab", "cd"] {
            let context = ResumeContext(bootID: bootID, boottime: .nanoseconds(Int64.max), realtime: .nanoseconds(Int64.max),
                                        clockSynchronized: true, resumeAfterReboot: true)
            let boxing = ResumeDecision.decide(saved, program: Presets.boxing, context: context, now: now).session
            #expect(boxing.state(at: now) == .finished)
            let stopwatch = ResumeDecision.decide(saved, program: Presets.stopwatch, context: context, now: now).session
            #expect(stopwatch.elapsed(at: now) == SavedSession.longestElapsed)
        }
    }
}

/// Generated corpus: valid state files mutated at random (numbers swapped for extremes,
/// lines dropped, duplicated or swapped, bytes flipped), decoded and restored under random
/// system readings, then driven through a controller: never a trap; either a valid session
/// (elapsed within the program, every derived value computable) or an error (set aside).
/// Replay a failure with `ROUNDCLOCK_SEED=<seed>`.
@Suite struct StateFileCorpusTests {
    static let extremes: [String] = [
        "0", "1", "999999999", "86400000000000", "8640000000000000", "8640000000000001", "9223372036854775806",
        "9223372036854775807", "9223372036854775808", "18446744073709551615", "99999999999999999999999",
        "-1", "-9223372036854775808", "+1", "", " 1", "1e9", "0x10", "１",
    ]
    static let programs = ["boxing", "tabata", "stopwatch", "clock", "emom:10", "countdown:1:00",
                           "3 x 0:30/0:10, prep 0:05", "fortime:20", "amrap:12", "sparring", ""]

    /// xorshift64*: small, fast and replayable from its seed.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
        mutating func instant() -> Int64 {
            switch below(4) {
            case 0: Int64(bitPattern: next() >> 1)
            case 1: Int64(below(1_000_000)) * 1_000_000_000
            case 2: Int64.max - Int64(below(1000))
            default: Int64(below(3))
            }
        }
    }

    static func validFile(_ r: inout Random) -> String {
        let state = r.pick(SavedSession.RunState.allCases)
        let elapsed: Duration = state == .ready ? .zero : .nanoseconds(Int64(r.below(1_000_000)) * 1_000_000 + 1)
        let anchored = state == .running
        let saved = SavedSession(program: r.pick(programs.filter { !$0.isEmpty }), runState: state, elapsedBefore: elapsed,
                                 bootID: r.pick(["ab", "cd"]), anchorBoottime: anchored ? .nanoseconds(r.instant()) : nil,
                                 anchorRealtime: anchored ? .nanoseconds(r.instant()) : nil, savedRealtime: .nanoseconds(r.instant()))
        return StateFileFormat.encode(saved)
    }

    static func mutate(_ text: String, _ r: inout Random) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for _ in 0...r.below(3) {
            let i = 1 + r.below(max(lines.count - 2, 1))
            guard i < lines.count else { continue }
            switch r.below(7) {
            case 0, 1, 2:
                if let eq = lines[i].firstIndex(of: "=") {
                    let value = lines[i].hasPrefix("program=") ? r.pick(programs) : r.pick(extremes)
                    lines[i] = lines[i][...eq] + value
                }
            case 3: lines.remove(at: i)
            case 4: lines.insert(lines[i], at: i)
            case 5: lines.swapAt(i, 1 + r.below(max(lines.count - 2, 1)))
            default:
                var bytes = Array(lines[i].utf8)
                if !bytes.isEmpty { bytes[r.below(bytes.count)] = UInt8(truncatingIfNeeded: r.next()) }
                lines[i] = String(decoding: bytes, as: UTF8.self)
            }
        }
        if r.below(10) == 0, let state = ["state=ready", "state=running", "state=paused"].randomElement() {
            lines.insert(state, at: 1)
        }
        return lines.joined(separator: "\n")
    }

    @Test func mutatedStateFilesNeverTrap() async {
        let seed = ProcessInfo.processInfo.environment["ROUNDCLOCK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("StateFileCorpusTests seed \(seed) (replay: ROUNDCLOCK_SEED=\(seed))")
        var r = Random(state: seed)
        var restored = 0, rejected = 0
        for iteration in 0..<20_000 {
            // CPU-bound: let the timing tests running alongside have the pool now and then.
            if iteration % 500 == 0 { await Task.yield() }
            let text = r.below(8) == 0 ? Self.validFile(&r) : Self.mutate(Self.validFile(&r), &r)
            let saved: SavedSession
            do throws(StateFileError) {
                saved = try StateFileFormat.decode(text)
            } catch {
                rejected += 1
                continue
            }
            guard let program = try? ProgramSpec.parse(saved.program) else { rejected += 1; continue }
            let context = ResumeContext(bootID: r.pick(["ab", "cd"]), boottime: .nanoseconds(r.instant()), realtime: .nanoseconds(r.instant()),
                                        clockSynchronized: r.below(2) == 0, resumeAfterReboot: r.below(2) == 0)
            let now = VirtualClock.Instant(offset: .seconds(Int64(r.below(1_000_000))))
            let (session, _) = ResumeDecision.decide(saved, program: program, context: context, now: now)
            let elapsed = session.elapsed(at: now)
            #expect(elapsed >= .zero && elapsed <= SavedSession.longestElapsed, "seed \(seed): \(text.debugDescription)")
            var controller = Controller<VirtualClock.Instant>(program: program)
            controller.restore(session, at: now)
            let wall = WallTime(sinceEpoch: .seconds(1_795_000_000))
            for later in [Duration.zero, .seconds(1), .seconds(86_400)] {
                _ = controller.face(at: now.advanced(by: later), wallTime: wall)
                _ = controller.status(at: now.advanced(by: later))
                _ = controller.nextDeadline(after: now.advanced(by: later), wallTime: wall)
            }
            restored += 1
        }
        print("StateFileCorpusTests seed \(seed): \(restored) restored, \(rejected) set aside")
        #expect(restored > 1000 && rejected > 1000, "seed \(seed): the corpus exercises both outcomes")
    }

    /// The same corpus through the files: write, `StateSaver.restore`; the file is either
    /// used (left in place) or set aside, and the next save always works.
    @Test func mutatedStateFilesAreUsedOrSetAside() throws {
        let seed = ProcessInfo.processInfo.environment["ROUNDCLOCK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("StateFileCorpusTests files seed \(seed) (replay: ROUNDCLOCK_SEED=\(seed))")
        var r = Random(state: seed)
        let dir = try TempDir()
        defer { dir.remove() }
        let system = FakeSystem(bootID: "ab")
        let saver = StateSaver(store: StateStore(directory: dir.path), readings: system.readings, logger: LogLines().logger())
        for _ in 0..<300 {
            for name in dir.entries { unlink("\(dir.path)/\(name)") }
            let text = Self.mutate(Self.validFile(&r), &r)
            try dir.write("state", text)
            let (session, outcome) = saver.restore(now: VirtualClock.Instant(offset: .seconds(5)), fallback: Presets.tabata,
                                                   resumeAfterReboot: true, resolve: { try? ProgramSpec.parse($0) })
            if outcome == nil {
                #expect(dir.entries == ["state.corrupt-20261118T110640Z"], "seed \(seed): \(text.debugDescription)")
                #expect(session.program == Presets.tabata)
            } else {
                #expect(dir.entries == ["state"], "seed \(seed): \(text.debugDescription)")
            }
            #expect(saver.save(session, at: .init(offset: .seconds(5))), "seed \(seed)")
        }
    }

}

/// A saved program whose durations overflow when parsed (`countdown:153722867280912931:00`):
/// the parse range-checks, so such a file names no program it can run and is set aside.
@Suite struct OverflowingSavedProgramTests {
    @Test(arguments: ["countdown:153722867280912931:00", "3 x 153722867280912931:00/0:10", "emom:99999999999999999"])
    func overflowingProgramIsSetAside(_ program: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try dir.write("state", "roundclock-state 1\nprogram=\(program)\nstate=paused\nelapsed_before_ns=5\nboot_id=ab\nsaved_realtime_ns=1\n")
        let saver = StateSaver(store: StateStore(directory: dir.path), readings: FakeSystem().readings, logger: LogLines().logger())
        let (session, outcome) = saver.restore(now: VirtualClock.Instant(offset: .zero), fallback: Presets.tabata, resumeAfterReboot: true,
                                               resolve: { try? ProgramSpec.parse($0) })
        #expect(session.program == Presets.tabata && outcome == nil)
        #expect(dir.entries == ["state.corrupt-20261118T110640Z"])
    }
}

/// A save never blocks on, or writes through, whatever sits at the temp file's path.
@Suite struct StateSaveSafetyTests {
    @Test func fifoOrSymlinkAtTheTempPathIsReplaced() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let store = StateStore(directory: dir.path)
        let saved = SavedSession(program: "tabata", runState: .paused, elapsedBefore: .seconds(42), bootID: "ab", savedRealtime: .seconds(1))
        #expect(mkfifo(store.tempPath, 0o600) == 0)
        try store.save(saved)
        #expect(try store.readText() == StateFileFormat.encode(saved))
        let outside = "\(dir.path)/outside"
        try dir.write("outside", "keep")
        #expect(symlink(outside, store.tempPath) == 0)
        try store.save(saved)
        #expect(try dir.read("outside") == "keep")
        #expect(dir.entries == ["outside", "state"])
    }
}

/// What the clock writes it must read back: save → parse gives the same session, also for
/// anchors before the clocks' zero (a round resumed by wall time after a reboot began before
/// this boot: its CLOCK_BOOTTIME anchor is negative; a wall clock near 1970 on a Pi without
/// a real-time clock gives a negative CLOCK_REALTIME anchor).
@Suite struct StateFileRoundTripTests {
    typealias I = VirtualClock.Instant

    @Test(arguments: [
        (since: 100, boottime: 30, realtime: 1_795_000_000), // resumed after a reboot: anchor 70 s before boot
        (since: 100, boottime: 500, realtime: 60),            // wall clock at 1970-01-01 00:01
        (since: 0, boottime: 1, realtime: 1),
        (since: 4_000_000, boottime: 20, realtime: 1_795_000_000),
    ])
    func whatIsSavedIsReadBack(since: Int64, boottime: Int64, realtime: Int64) throws {
        var session = Session<I>(program: Presets.boxing)
        let now = I(offset: .seconds(5_000_000))
        _ = session.start(at: now.advanced(by: .seconds(-since)))
        let saved = SavedSession(session, at: now, bootID: "ab-12", boottime: .seconds(boottime), realtime: .seconds(realtime))
        let text = StateFileFormat.encode(saved)
        #expect(try StateFileFormat.decode(text) == saved, "\(text)")
    }

    @Test func signedAnchorsAreBoundedAndDigitsOnly() {
        let base = "roundclock-state 1\nprogram=boxing\nstate=running\nelapsed_before_ns=0\nboot_id=ab\nsaved_realtime_ns=1\nanchor_realtime_ns=1\n"
        for bad in ["--5", "-", "-+5", "+5", "- 5", "-9223372036854775808", "5-"] {
            #expect(throws: StateFileError.self, "\(bad)") { try StateFileFormat.decode(base + "anchor_boottime_ns=\(bad)\n") }
        }
        #expect((try? StateFileFormat.decode(base + "anchor_boottime_ns=-9223372036854775807\n"))?.anchorBoottime == .nanoseconds(-Int64.max))
    }
}
