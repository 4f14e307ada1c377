import Foundation
import Testing

/// Input limits as a user meets them: long or malformed times and
/// numbers on the command line and in the config are one-line usage (64) or config (78)
/// errors naming the token, never a crash by signal; the longest valid values work.
@Suite struct InputLimitsCLITests {
    static let huge = "153722867280912931:00" // × 60 overflows Int64

    /// The command lines and what their error must mention. A stored list rather than a
    /// literal in `@Test(arguments:)`: Swift 6.0.3 crashes type-checking string
    /// interpolations of `huge` inside the macro's arguments.
    static let badTimesAndNumbers: [([String], String)] = [
        // Every duration parse range-checks.
        (["simulate", "--virtual", "--no-tty", "--until", huge], "--until \"\(huge)\""),
        (["simulate", "--virtual", "--no-tty", "--until", "8784:00:01"], "at most 8784:00:00"),
        (["simulate", "--virtual", "--no-tty", "--program", "countdown:\(huge)"], "\"\(huge)\""),
        (["simulate", "--virtual", "--no-tty", "--program", "3 x 1:00, prep \(huge)"], "\"\(huge)\" — expected a time of at most 24:00:00"),
        (["simulate", "--virtual", "--no-tty", "--program", "2 x 24:00:01"], "\"24:00:01\" — expected a time of at most 24:00:00"),
        (["simulate", "--virtual", "--no-tty", "--program", "amrap:99999999999999999999"], "\"99999999999999999999\""),
        (["simulate", "--virtual", "--no-tty", "--events", "153722867280912931:start"], "\"153722867280912931\""),
        (["simulate", "--virtual", "--no-tty", "--events", "1:stop:153722867280912931"], "\"153722867280912931\""),
        (["simulate", "--virtual", "--no-tty", "--wall-time", huge], "--wall-time"),
        (["programs", "countdown:\(huge)"], "\"\(huge)\""),
        (["run", "--simulate", "--virtual", "--until", huge], "--until \"\(huge)\""),
        (["run", "--simulate", "--virtual", "--program", "countdown:\(huge)", "--until", "1"], "\"\(huge)\""),
        // --step is validated like the bench options.
        (["test-display", "--simulate", "--step", "inf"], "--step must be between 0 s and 60 s, got inf"),
        (["test-display", "--simulate", "--step", "1e16"], "--step must be between 0 s and 60 s, got 1e+16"),
        (["test-display", "--simulate", "--step", "nan"], "--step must be between 0 s and 60 s, got nan"),
        (["test-display", "--simulate", "--step=-1"], "--step must be between 0 s and 60 s, got -1"),
        // Strict grammars.
        (["simulate", "--virtual", "--no-tty", "--wall-time", "18::30"], "bad --wall-time \"18::30\""),
        (["simulate", "--virtual", "--no-tty", "--wall-time", "18:30:"], "bad --wall-time \"18:30:\""),
        (["simulate", "--virtual", "--no-tty", "--wall-time", "1:2"], "bad --wall-time \"1:2\""),
        (["simulate", "--virtual", "--no-tty", "--wall-time", "+1:00"], "bad --wall-time \"+1:00\""),
        (["simulate", "--virtual", "--no-tty", "--program", "emom:+5"], "\"+5\" — expected a whole number of minutes"),
        (["simulate", "--virtual", "--no-tty", "--program", "countdown: 1:00"], "\" 1:00\" — expected a length M:SS"),
        (["simulate", "--virtual", "--no-tty", "--until", "+90"], "bad --until \"+90\""),
        (["simulate", "--virtual", "--no-tty", "--events", "+5:start"], "\"+5\""),
        (["run", "--simulate", "--brightness", "+5"], "'+5' is invalid for '--brightness"),
    ]

    @Test(arguments: badTimesAndNumbers)
    func badTimesAndNumbersAreOneLineUsageErrors(arguments: [String], mentions: String) async throws {
        let run = try await CLIRun.run(arguments)
        #expect(run.status == 64, "EX_USAGE, not a signal: \(run.status) \(run.stderr)")
        #expect(run.stderr.contains(mentions), "\(run.stderr)")
        #expect(run.stderr.hasPrefix("roundclock: error: ") && run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
    }

    @Test func theLongestValidValuesWork() async throws {
        let longest = try await CLIRun.run(["programs", "99 x 24:00:00/24:00:00, prep 24:00:00, warn 23:59:59"])
        #expect(longest.status == 0, "\(longest.stderr)")
        #expect(longest.stdout.contains("4752:00:00"), "198 phases of 24 h: \(longest.stdout)")
        // A day of virtual time is simulated in full (the power checks wake the loop all
        // day); the longest `--until` and event time are accepted and start.
        let day = try await CLIRun.run(["simulate", "--virtual", "--no-tty", "--program", "countdown:0:02", "--until", "24:00:00",
                                        "--events", "86398:start", "--wall-time", "23:59:59"])
        #expect(day.status == 0 && day.stdout.contains("ended finished"), "\(day.stderr)")
        let frames = temporaryFile("longest.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let longest366 = Process()
        longest366.executableURL = CLIRun.binary
        longest366.arguments = ["simulate", "--virtual", "--no-tty", "--program", "countdown:0:02", "--until", "8784:00:00",
                                "--events", "31622400:start", "--wall-time", "23:59:59", "--frames", frames]
        longest366.standardOutput = FileHandle.nullDevice
        longest366.standardError = FileHandle.nullDevice
        try longest366.run()
        let deadline = Date().addingTimeInterval(60)
        while ((try? jsonLines(frames)) ?? []).isEmpty, longest366.isRunning, Date() < deadline {
            try await Task.sleep(for: .seconds(0.05))
        }
        #expect(longest366.isRunning && !((try? jsonLines(frames)) ?? []).isEmpty, "366 days of virtual time accepted and running")
        longest366.terminate()
        await longest366.exited()
        let step = try await CLIRun.run(["test-display", "--simulate", "--step", "0.001"])
        #expect(step.status == 0 && step.stdout.contains("step 22/22: blank"), "\(step.stderr)")
    }

    /// Config texts and what their error must mention (stored: see `badTimesAndNumbers`).
    static let badTimesInTheConfig: [(String, String)] = [
        ("program = \"countdown:\(huge)\"\n", "program: bad program \"countdown:\(huge)\""),
        ("[programs]\nlong = \"3 x \(huge)\"\n", "programs.long: bad program \"3 x \(huge)\""),
        ("[programs]\nsigned = \"emom:+5\"\n", "programs.signed: bad program \"emom:+5\": \"+5\""),
    ]

    @Test(arguments: badTimesInTheConfig)
    func badTimesInTheConfigExit78(config: String, mentions: String) async throws {
        let path = temporaryFile("limits.toml")
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for arguments in [["check-config", path], ["run", "--simulate", "--virtual", "--until", "1", "--config", path]] {
            let run = try await CLIRun.run(arguments)
            #expect(run.status == 78, "EX_CONFIG, not a signal: \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(mentions) && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
    }

    /// `simulator` names the built-in board, not a preset; it is a usable program name.
    @Test func simulatorIsAUsableCustomProgramName() async throws {
        let path = temporaryFile("simulator-program.toml")
        try "board = \"simulator\"\nprogram = \"simulator\"\n[programs]\nsimulator = \"3 x 1:00\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await CLIRun.run(["check-config", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("program: simulator (3:00)") && run.stdout.contains("custom programs: simulator"), "\(run.stdout)")
    }
}
