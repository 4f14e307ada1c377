import Foundation
import Synchronization
import TestSupport
import Testing

/// Generated bad (and good) command lines for every subcommand that runs without hardware,
/// each run as a user would run it (stdin from /dev/null): whatever the arguments, files and
/// values, `roundclock` ends by itself (killed after 180 s otherwise: a generous bound even for
/// a 24-hour virtual run in a debug build) with an exit code from docs/command-line.md's table
/// (never a signal: a trap, an abort) and a failure is one line on stderr naming what was wrong.
///
/// Random but replayable: the seed is printed; `ROUNDCLOCK_FUZZ_SEED=N swift test --filter
/// CLIFuzz` runs the same cases again, `ROUNDCLOCK_FUZZ_CASES` changes how many.
@Suite(.serialized) struct CLIFuzzTests {
    /// Exit codes docs/command-line.md's table allows (sysexits.h: EX_USAGE 64, EX_UNAVAILABLE 69,
    /// EX_SOFTWARE 70, EX_CANTCREAT 73, EX_IOERR 74, EX_CONFIG 78).
    static let allowed: Set<Int32> = [0, 64, 69, 70, 73, 74, 78]
    /// A run taking longer than this is a hang.
    static let hangSeconds = 180

    /// Files the cases point at, made fresh for each run of the test.
    struct Fixtures {
        let directory: String
        var configs: [String] = []
        var boards: [String] = []
        var fifo: String { directory + "/fifo" }
        var missingDirectory: String { directory + "/no/such/dir" }

        init() throws {
            directory = temporaryFile("fuzz")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            guard mkfifo(directory + "/fifo", 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
            let repository = CheckConfigTests.repository.path
            let texts: [String] = [
                "", "program = \"tabata\"\n", "[\n", "[#]\n", "[=]\n", "[.]\n", "[[\n", "[é]\n",
                "board = \"simulator\"\u{0}foo = 1\n", "program = \"countdown:153722867280912931:00\"\n",
                "program = \"99 x 24:00:00/24:00:00\"\n", "[programs]\nsimulator = \"3 x 1:00\"\n",
                "[programs]\nlong = \"1 x 99999999999999999999\"\n", "program = \"a\nb\"\n", "[buttons]\nlong_press_ms = 1e400\n",
                "[brightness]\nnight = 9223372036854775808\n", "x = \"\\u0000\"\n", "a.b.c.d = 1\n[a]\n",
                String(repeating: "[", count: 10_000), "k = " + String(repeating: "[", count: 10_000),
                "program = \"boxing\"\n[display]\non_shutdown = \"last\"\ncadence = \"live\"\n",
            ]
            for (i, text) in texts.enumerated() {
                let path = directory + "/config-\(i).toml"
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                configs.append(path)
            }
            configs += [directory + "/missing.toml", directory, directory + "/fifo", repository + "/systemd/config.example.toml"]
            boards = [repository + "/boards/simulator.toml", repository + "/boards/pi4.toml", configs[2], configs[8],
                      directory + "/fifo", directory + "/missing-board.toml"]
        }
    }

    static let durations = ["5", "0:05", "1:00", "0", "-1", "+5", "nan", "inf", "1e16", "153722867280912931:00", "18::30",
                            "1:2", " 1:00", "1:00 ", "24:00:01", "1:60", "é", "", "0x10", "1_000", "9223372036854775807", "0:59:59", "8784:00:01"]
    static let programs = ["boxing", "tabata", "emom:5", "emom:+5", "emom:0", "emom:100", "amrap:1", "fortime:2",
                           "countdown:0:03", "countdown: 1:00", "countdown:153722867280912931:00", "stopwatch", "clock",
                           "3 x 0:05/0:02, prep 0:02", "99 x 24:00:00/24:00:00", "10 x 0:45/0:15, prep 0:10, warn 0:05",
                           "1 x 99999999999999999999", "x", "", "3 x", "3 x 0:05/", "boxen", "box\ning", "3 x 1:00\u{1B}[2J"]
    static let wallTimes = ["18:30", "18:30:15", "18::30", "18:30:", "1:2", "+1:00", "24:00", "23:59:60", "", "99999999999:00"]
    static let events = ["0:start", "1:start,2:stop", "1:stop:2.5", "0.5:start:inf", "nan:start", "1:start:-1", "1:jump",
                         "1e16:start", "153722867280912931:start", "1:start:153722867280912931", "", ",", "1:start,", "1:st\nart"]

    func command(_ g: inout SplitMix64, _ f: Fixtures) -> [String] {
        var args: [String]
        func maybe(_ percent: UInt64, _ option: String, _ values: [String]) {
            if g.chance(percent) { args += [option, g.pick(values)] }
        }
        let frames = [f.directory + "/frames.jsonl", f.missingDirectory + "/f.jsonl", f.fifo, f.directory, "-"]
        switch g.next() % 6 {
        case 0:
            args = ["simulate", "--virtual", "--no-tty"]
            maybe(60, "--program", Self.programs)
            args += ["--until", g.chance(80) ? g.pick(["3", "0:10", "1:00"]) : g.pick(Self.durations)]
            maybe(30, "--events", Self.events)
            maybe(20, "--frames", frames)
            maybe(20, "--board", f.boards)
            maybe(20, "--wall-time", Self.wallTimes)
            maybe(20, "--cadence", ["seconds", "live", "minutes", "hours", ""])
            if g.chance(20) { args.append("--ready") }
        case 1:
            args = ["run", "--simulate", "--virtual"]
            maybe(50, "--config", f.configs)
            maybe(20, "--board", f.boards)
            maybe(40, "--program", Self.programs)
            maybe(30, "--state-dir", [f.directory + "/state", f.missingDirectory, f.fifo, f.configs[0]])
            maybe(20, "--frames", frames)
            maybe(20, "--brightness", ["0", "15", "16", "-1", "nan", ""])
            maybe(30, "--events", Self.events)
            maybe(20, "--wall-time", Self.wallTimes)
            args += ["--until", g.chance(80) ? g.pick(["3", "0:10"]) : g.pick(Self.durations)]
        case 2:
            args = ["check-config", g.pick(f.configs)]
        case 3:
            args = ["programs"] + (0..<Int(g.next() % 3)).map { _ in g.pick(Self.programs) }
        case 4:
            args = ["render", "--display", g.pick(["seg7x4", "bigseg7x4", "seg14x4", "matrix8x8", "matrix16x8", "lcd"]),
                    g.pick([" 2:58", "WORK", "K", "12345", "", "é", "\n", "8.8.8.8.", String(repeating: "8", count: 1000)])]
        default:
            args = ["test-display", "--simulate", "--step", g.pick(["0", "0.01", "inf", "1e16", "nan", "-1", "", "+0"])]
        }
        if g.chance(5) { args.insert(g.pick(["--bogus", "-x", "--", "--help=1"]), at: 1 + Int(g.next() % UInt64(args.count))) }
        return args
    }

    /// Runs `roundclock args` with stdin from /dev/null, killing it (SIGKILL) if it is still
    /// running after `killAfter`: a hang is reported, never waited for.
    static func run(_ args: [String], killAfter: Duration) async throws -> (status: Int32, signaled: Bool, hung: Bool, stderr: String) {
        try await onOwnThread {
            let process = Process()
            process.executableURL = CLIRun.binary
            process.arguments = args
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            let err = Pipe()
            process.standardError = err
            try process.run()
            let hung = Mutex(false)
            let pid = process.processIdentifier
            let seconds = Double(killAfter.components.seconds)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                if process.isRunning { hung.withLock { $0 = true }; kill(pid, SIGKILL) }
            }
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, process.terminationReason == .uncaughtSignal, hung.withLock { $0 },
                    String(decoding: stderr, as: UTF8.self))
        }
    }

    @Test func generatedCommandLinesEndWithAnAllowedExitAndOneLineErrors() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["ROUNDCLOCK_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        let count = environment["ROUNDCLOCK_FUZZ_CASES"].flatMap(Int.init) ?? 120
        print("CLIFuzzTests: seed \(seed), \(count) cases (replay: ROUNDCLOCK_FUZZ_SEED=\(seed))")
        let fixtures = try Fixtures()
        defer { try? FileManager.default.removeItem(atPath: fixtures.directory) }
        var g = SplitMix64(seed: seed)
        for index in 0..<count {
            let args = command(&g, fixtures)
            try? FileManager.default.removeItem(atPath: fixtures.directory + "/state")
            let run = try await Self.run(args, killAfter: .seconds(Self.hangSeconds))
            let replay = "case \(index) of seed \(seed): roundclock \(args.map { "'\($0)'" }.joined(separator: " "))"
            #expect(!run.hung, "still running after \(Self.hangSeconds) s: \(replay)")
            #expect(!run.signaled, "killed by signal \(run.status): \(replay)\n\(run.stderr.prefix(500))")
            guard !run.hung, !run.signaled else { continue }
            #expect(Self.allowed.contains(run.status), "exit \(run.status): \(replay)\n\(run.stderr)")
            if run.status != 0 {
                // Log lines of `run` come first (one each); the error is the last line.
                let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                #expect(!lines.isEmpty, "a failure says why: \(replay)")
                if args.first != "run" {
                    #expect(lines.count == 1, "one line: \(replay)\n\(run.stderr)")
                }
            }
        }
    }
}
