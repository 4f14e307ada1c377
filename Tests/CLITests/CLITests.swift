import Foundation
import Testing

/// Runs the built `roundclock` binary (it sits beside the test bundle) and checks its output.
struct CLIRun {
    var status: Int32
    var stdout: String
    var stderr: String

    static var binary: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = testBinary.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("roundclock").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("roundclock")
    }

    static func run(_ arguments: [String]) async throws -> CLIRun {
        try await run(binary, arguments)
    }

    /// The `roundclock-bench` binary, built next to `roundclock`.
    static var benchBinary: URL { binary.deletingLastPathComponent().appendingPathComponent("roundclock-bench") }

    static func runBench(_ arguments: [String]) async throws -> CLIRun {
        try await run(benchBinary, arguments)
    }

    /// Runs `executable` to completion, capturing both streams. The blocking reads and the
    /// wait happen on a thread of their own: tests run in parallel on Swift's cooperative
    /// pool (one thread per core), and a test blocking it would starve the timing tests.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws -> CLIRun {
        try await onOwnThread { try runBlocking(executable, arguments, environment: environment) }
    }

    private static func runBlocking(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> CLIRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIRun(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Runs blocking `work` on a new thread and awaits its result without holding a pool thread.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

extension Process {
    /// `waitUntilExit()` on a thread of its own (see `CLIRun.run`).
    func exited() async {
        let process = self
        _ = try? await onOwnThread { process.waitUntilExit() }
    }
}

func temporaryFile(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("roundclock-\(UUID().uuidString)-\(name)").path
}

/// A panel line without its chip fields (`ram`, `brightness`, `blink`), for comparing with
/// the frames file format (docs/command-line.md).
func core(_ raw: String) -> String {
    guard let range = raw.range(of: #", "ram": ""#) else { return raw }
    return String(raw[..<range.lowerBound]) + "}"
}

func jsonLines(_ path: String) throws -> [(raw: String, object: [String: Any])] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
        return (String(line), object)
    }
}

@Suite(.serialized) struct CLITests {
    @Test func virtualBoxingFramesFile() async throws {
        let frames = temporaryFile("boxing.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let started = Date()
        let run = try await CLIRun.run(["simulate", "--virtual", "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        // Virtual, not real time (2830 s): a bound no busy machine comes near; speed is for the benchmarks.
        #expect(Date().timeIntervalSince(started) < 600, "47 minutes of virtual time, not waited out")
        let lines = try jsonLines(frames)
        #expect(lines.allSatisfy { $0.raw.range(of: #"^\{"t": \d+\.\d{3}, "#, options: .regularExpression) != nil }, "t with exactly 3 decimals")
        #expect(lines.first.map { core($0.raw) } == #"{"t": 0.000, "panel": "time", "text": " 0:10", "phase": "prep", "round": 0, "rounds": 12, "state": "running"}"#)
        #expect(lines.contains { core($0.raw) == #"{"t": 12.000, "panel": "time", "text": " 2:58", "phase": "work", "round": 1, "rounds": 12, "state": "running"}"# })
        #expect(lines.contains { $0.raw == #"{"t": 180.000, "signal": "warning"}"# })
        let time = lines.filter { $0.object["panel"] as? String == "time" }
        #expect(time.count == 2831)
        #expect(time.last.map { core($0.raw) } == #"{"t": 2830.000, "panel": "time", "text": " 0:00", "phase": "work", "round": 12, "rounds": 12, "state": "finished"}"#)
        let signals = lines.compactMap { $0.object["signal"] as? String }
        let expectedSignals: Int = 12 + 12 + 11 + 3 + 1 // start, end, warning, prep 3-2-1, finish
        #expect(signals.count == expectedSignals)
        #expect(signals.last == "finish")
        // Chip fields: RAM as the emulated chip holds it, and the text decoded from it.
        let twelve = try #require(lines.first { core($0.raw).hasPrefix(#"{"t": 12.000, "panel": "time""#) })
        #expect(twelve.object["ram"] as? String == "00005b0002006d007f00000000000000")
        #expect(twelve.object["brightness"] as? Int == 15 && twelve.object["blink"] as? String == "off")
        let phase = lines.filter { $0.object["panel"] as? String == "phase" }.compactMap { $0.object["text"] as? String }
        #expect(phase.prefix(4) == ["PREP", "WORK", "REST", "WORK"] && phase.last == "DONE")
        // The traffic target (docs/benchmarks.md): at most 6 bytes on the bus per displayed
        // second (a second change rewrites one RAM byte, not the whole 16-byte RAM), the
        // reads of the power-loss checks included.
        let traffic = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("I2C: start-up ") }, "I2C traffic report")
        let perSecond = try #require(traffic.firstMatch(of: /in ([0-9]+) transactions = ([0-9.]+) bytes and [0-9.]+ transactions per displayed second \(2831 time changes\), power-loss checks included: ([0-9]+) reads/))
        #expect(try #require(Double(perSecond.2)) <= 6, "\(traffic)")
        let reads = try #require(Int(perSecond.3))
        // Each panel's first check reads nothing (every byte was written since start-up).
        #expect(reads >= 2830 * 3 / 2 - 3, "each of the 3 panels checked at least every 2 s: \(traffic)")
        let writes = try #require(Int(perSecond.1)) - reads
        // About one write per displayed second, plus the settings some checks re-send
        // (3 send-bytes, when no RAM byte could tell, and every 60th check of a panel).
        #expect(Double(writes) / 2831 < 1.25, "about one write per displayed second: \(traffic)")
        #expect(run.stdout.contains("simulated boxing for 2831.000 s"))
    }

    @Test(arguments: [
        // live: hundredths below one minute, the first at 5.01 s ( 1:00 is shown from 5.000).
        ("live", "countdown:1:05", "7", [(0.0, " 1:05"), (5.0, " 1:00"), (5.01, "59.99"), (6.0, "59.00")]),
        // minutes: H:MM, the minute rounded up as a countdown shows it.
        ("minutes", "countdown:2:05", "130", [(0.0, " 0:03"), (5.0, " 0:02"), (65.0, " 0:01"), (125.0, " 0:00")]),
    ])
    func cadencePicksTheResolution(cadence: String, program: String, until: String, expected: [(Double, String)]) async throws {
        let frames = temporaryFile("cadence-\(cadence).jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["simulate", "--program", program, "--virtual", "--cadence", cadence, "--until", until, "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        let time = try jsonLines(frames).filter { $0.object["panel"] as? String == "time" }
        let shown = time.compactMap { line -> (Double, String)? in
            guard let t = line.object["t"] as? Double, let text = line.object["text"] as? String else { return nil }
            return (t, text)
        }
        for (t, text) in expected {
            #expect(shown.contains { abs($0.0 - t) < 0.0005 && $0.1 == text }, "\(text) at \(t) s")
        }
        if cadence == "minutes" { #expect(shown.count == 4, "one change per minute shown") }
        if cadence == "live" { #expect(shown.count == 6 + 200, "1:05 … 1:00 each second, then each hundredth from 5.01 to 7.00 s") }
    }

    /// Starting the session itself at t = 0, `simulate` reports the signals due at that
    /// instant (a countdown's `start`, the first prep tick of a short prep), exactly as a
    /// START press at t = 0 does.
    @Test(arguments: ["countdown:0:05", "3 x 0:05/0:02, prep 0:02"])
    func signalsAtTimeZeroAreNotDropped(program: String) async throws {
        let auto = temporaryFile("auto.jsonl"), pressed = temporaryFile("pressed.jsonl")
        defer { for p in [auto, pressed] { try? FileManager.default.removeItem(atPath: p) } }
        let a = try await CLIRun.run(["simulate", "--virtual", "--no-tty", "--program", program, "--frames", auto])
        let b = try await CLIRun.run(["simulate", "--virtual", "--no-tty", "--program", program, "--frames", pressed,
                                      "--ready", "--events", "0:start"])
        #expect(a.status == 0 && b.status == 0, "\(a.stderr)\(b.stderr)")
        func signals(_ path: String) throws -> [String] { try jsonLines(path).filter { $0.object["signal"] != nil }.map(\.raw) }
        let started = try signals(auto)
        #expect(started.first?.hasPrefix(#"{"t": 0.000, "signal": ""#) == true, "\(started)")
        let whenPressed = try signals(pressed)
        #expect(started == whenPressed)
    }

    @Test func scriptedButtonsWithALongStop() async throws {
        let frames = temporaryFile("tabata.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["simulate", "--program", "tabata", "--virtual", "--events", "5:stop,6:start,8:stop:2.5", "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        let time = try jsonLines(frames).filter { $0.object["panel"] as? String == "time" }.map { core($0.raw) }
        #expect(time.contains(#"{"t": 5.000, "panel": "time", "text": " 0:05", "phase": "prep", "round": 0, "rounds": 8, "state": "paused"}"#))
        #expect(time.contains(#"{"t": 6.000, "panel": "time", "text": " 0:05", "phase": "prep", "round": 0, "rounds": 8, "state": "running"}"#))
        // STOP at 8 pauses at once, held 2 s it resets: ready again at 10.000.
        #expect(time.last == #"{"t": 10.000, "panel": "time", "text": " 0:10", "phase": "prep", "round": 0, "rounds": 8, "state": "ready"}"#)
    }

    @Test func clockModeWithAFixedWallTime() async throws {
        let frames = temporaryFile("clock.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["simulate", "--program", "clock", "--virtual", "--wall-time", "18:59:59", "--until", "2", "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        let texts = try jsonLines(frames).filter { $0.object["panel"] as? String == "time" }.map { "\($0.object["t"]!) \($0.object["text"]!)" }
        #expect(texts == ["0.0 18:59", "0.5 1859", "1.0 19:00", "1.5 1900", "2.0 19:00"])
    }

    @Test func realTimeFramesCarryMicrosecondsAndAreNeverEarly() async throws {
        let frames = temporaryFile("real.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["simulate", "--program", "countdown:0:02", "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        let time = try jsonLines(frames).filter { $0.object["panel"] as? String == "time" }
        #expect(time.allSatisfy { $0.raw.range(of: #"^\{"t": \d+\.\d{6}, "#, options: .regularExpression) != nil }, "t in microseconds")
        #expect(time.map { $0.object["text"] as? String } == [" 0:02", " 0:01", " 0:00"])
        for (i, line) in time.enumerated() {
            let t = try #require(line.object["t"] as? Double)
            #expect(t >= Double(i), "committed at or after the ideal instant \(i) s, never before")
            #expect(t < Double(i) + 0.5, "and not a refresh period late")
        }
    }

    @Test func programsListsEveryPresetWithItsTotal() async throws {
        let run = try await CLIRun.run(["programs"])
        #expect(run.status == 0)
        for (name, total) in [("boxing", "47:10"), ("mma", "29:10"), ("muaythai", "23:10"), ("tabata", "4:00"), ("emom:10", "10:10"),
                              ("amrap:20", "20:10"), ("fortime:20", "20:10"), ("countdown:M:SS", "M:SS"), ("stopwatch", "open-ended"), ("clock", "-")] {
            #expect(run.stdout.split(separator: "\n").contains { $0.hasPrefix(name + " ") && $0.contains(" \(total) ") }, "\(name)")
        }
        let custom = try await CLIRun.run(["programs", "10 x 0:45/0:15, prep 0:10, warn 0:05"])
        #expect(custom.stdout.contains("9:55") && custom.stdout.contains("prep 0:10, 10 × 0:45 work / 0:15 rest, warn 0:05"))
    }

    @Test(arguments: [
        (["simulate", "--program", "boxen"], "\"boxen\""),
        (["simulate", "--program", "10 x 0:4/0:15"], "\"0:4\""),
        (["simulate", "--events", "5:jump"], "\"jump\""),
        (["simulate", "--events", "x:start"], "\"x\""),
        (["simulate", "--until", "1:75"], "--until"),
        (["simulate", "--program", "stopwatch"], "--until is required"),
        (["simulate", "--wall-time", "25:00"], "--wall-time"),
        (["programs", "emom:0"], "1 to 99"),
        (["simulate", "--bogus"], "--bogus"),
    ])
    func badInputIsAUsageErrorWithOneClearLine(arguments: [String], mentions: String) async throws {
        let run = try await CLIRun.run(arguments)
        #expect(run.status == 64, "EX_USAGE")
        #expect(run.stderr.contains(mentions), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(run.stderr.hasPrefix("roundclock: error: "), "\(run.stderr)")
        #expect(!run.stderr.contains("Fatal error") && !run.stderr.contains("backtrace"))
    }

    @Test func renderPrintsRAMThenArt() async throws {
        let run = try await CLIRun.run(["render", "--display", "seg7x4", " 2:58", "--plain"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "00005b0002006d007f00000000000000")
        #expect(lines.count >= 5, "segment art below the RAM line")
        let short = try await CLIRun.run(["render", "--display", "seg14x4", "GO", "--plain"])
        #expect(short.stdout.hasPrefix("00000000bd003f00"), "right-aligned: positions 0 and 1 blank, G = 0x00bd, O = 0x003f")
        let bad = try await CLIRun.run(["render", "--display", "seg7x4", "WORK"])
        #expect(bad.status == 64 && bad.stderr.contains("\"W\""))
        let kind = try await CLIRun.run(["render", "--display", "seg9x4", "1"])
        #expect(kind.status == 64 && kind.stderr.contains("seg7x4, bigseg7x4, seg14x4, matrix8x8, matrix16x8"))
    }

    @Test func boardFileChoosesThePanels() async throws {
        let board = temporaryFile("board.toml")
        let frames = temporaryFile("board.jsonl")
        defer { try? FileManager.default.removeItem(atPath: board); try? FileManager.default.removeItem(atPath: frames) }
        try """
            name = "one big panel"
            [[panels]]
            role = "time"
            kind = "bigseg7x4"
            address = 0x74
            """.write(toFile: board, atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(["simulate", "--board", board, "--program", "countdown:0:03", "--virtual", "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try jsonLines(frames)
        #expect(Set(lines.compactMap { $0.object["panel"] as? String }) == ["time"])
        #expect(lines.first?.object["ram"] as? String == "00003f0002003f004f00000000000000", " 0:03 with the colon")
        let broken = try await CLIRun.run(["simulate", "--board", "/nonexistent.toml"])
        #expect(broken.status == 64 && broken.stderr.contains("/nonexistent.toml: cannot open"))
    }

    @Test func runSimulatedWaitsForStartThenCounts() async throws {
        let frames = temporaryFile("run.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["run", "--simulate", "--program", "countdown:0:02", "--events", "0.5:start", "--until", "3", "--frames", frames])
        #expect(run.status == 0, "\(run.stderr)")
        let time = try jsonLines(frames).filter { $0.object["panel"] as? String == "time" }
        // A line only when the chip's content changes: START at 0.5 s leaves " 0:02" as it is.
        // At --until the service stops and blanks the panels (on_shutdown = "blank", the default).
        #expect(time.map { $0.object["text"] as? String } == [" 0:02", " 0:01", " 0:00", "    "])
        #expect(time.map { $0.object["state"] as? String } == ["ready", "running", "finished", "finished"])
        let t = time.compactMap { $0.object["t"] as? Double }
        #expect(t.count == 4 && t[1] >= 1.5 && t[2] >= 2.5 && t[2] < 2.9 && t[3] >= 3, "counts from the press at 0.5 s: \(t)")
        #expect(run.stderr.contains("info: start: running, work\n"), "one log line per event")
        #expect(run.stderr.contains("info: stopped"))
    }

    @Test func runOnMissingHardwareSaysWhatIsMissing() async throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let board = temporaryFile("bus250.toml")
        defer { try? FileManager.default.removeItem(atPath: board) }
        try String(contentsOfFile: repo.appendingPathComponent("boards/pi4.toml").path, encoding: .utf8)
            .replacingOccurrences(of: "bus = 1", with: "bus = 250").write(toFile: board, atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(["run", "--board", board])
        #expect(run.status == 69, "EX_UNAVAILABLE")
        #expect(run.stderr.contains("/dev/i2c-250: open failed: No such file or directory"))
        let usage = try await CLIRun.run(["run"])
        #expect(usage.status == 64 && usage.stderr.contains("give --config FILE or --board FILE"))
        let events = try await CLIRun.run(["run", "--board", board, "--events", "1:start"])
        #expect(events.status == 64 && events.stderr.contains("only with --simulate"))
    }

    @Test func lampTestSteps() async throws {
        let run = try await CLIRun.run(["test-display", "--simulate", "--step", "0"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.prefix(4) == ["time ffffffffffffffffffffffffffffffff brightness 15", "round ffffffffffffffffffffffffffffffff brightness 15",
                                    "phase ffffffffffffffffffffffffffffffff brightness 15", "step 1/22: all segments"])
        #expect(lines.contains("time 00000000000000ff0000000000000000 brightness 15") == false)
        #expect(lines.contains("time 000000000000ff000000000000000000 brightness 15"), "digit 3 of a seg7x4 is RAM byte 6")
        #expect((0...15).allSatisfy { lines.contains("time ffffffffffffffffffffffffffffffff brightness \($0)") }, "every dimming level")
        #expect(lines.last == "step 22/22: blank")
    }

    @Test func probeListsBusesAndChips() async throws {
        let run = try await CLIRun.run(["probe"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("I2C buses: "))
        #expect(run.stdout.contains("GPIO chips (libgpiod API v"))
    }

    /// A token holding a line break or another control character is quoted escaped, on the
    /// error's one line, never cut at the break (on the command line).
    @Test(arguments: [
        (["simulate", "--virtual", "--program", "box\ning"], #"bad program "box\ning""#),
        (["simulate", "--virtual", "--events", "1:st\nart"], #""st\nart""#),
        (["programs", "3 x 1:00\u{1B}[2J"], #"\u001B[2J"#),
        (["render", "--display", "seg7x4", "1\n2"], #"the character "\n""#),
    ])
    func controlCharactersInTokensAreEscapedOnOneLine(arguments: [String], quoted: String) async throws {
        let run = try await CLIRun.run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.hasSuffix("\n") && run.stderr.dropLast().split(separator: "\n", omittingEmptySubsequences: false).count == 1,
                "one line: \(run.stderr.debugDescription)")
        #expect(run.stderr.contains(quoted), "\(run.stderr.debugDescription)")
    }

    @Test func unwritableFramesFileIsACantCreateError() async throws {
        let run = try await CLIRun.run(["simulate", "--virtual", "--no-tty", "--frames", "/nonexistent-dir/f.jsonl"])
        #expect(run.status == 73)
        #expect(run.stderr.contains("/nonexistent-dir/f.jsonl") && run.stderr.contains("No such file"))
    }
}
