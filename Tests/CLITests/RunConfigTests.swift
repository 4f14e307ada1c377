import Foundation
import Testing

/// A `roundclock run --simulate --virtual` with a config file, in a temporary directory that
/// also holds the state directory (never the real one) and the frames file.
struct VirtualRun {
    var status: Int32
    var stderr: String
    /// Every frames-file record, in order.
    var records: [[String: Any]]
    /// The state file after the run, if one was written.
    var state: String?

    init(config: String, savedState: String? = nil, _ arguments: [String]) async throws {
        let dir = temporaryFile("virtual-run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        try config.write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        if let savedState { try savedState.write(toFile: dir + "/state/state", atomically: true, encoding: .utf8) }
        let run = try await CLIRun.run(["run", "--simulate", "--virtual", "--config", dir + "/config.toml",
                                  "--state-dir", dir + "/state", "--frames", dir + "/frames.jsonl"] + arguments)
        status = run.status
        stderr = run.stderr
        records = FileManager.default.fileExists(atPath: dir + "/frames.jsonl") ? try jsonLines(dir + "/frames.jsonl").map(\.object) : []
        state = try? String(contentsOfFile: dir + "/state/state", encoding: .utf8)
    }

    /// The records of one panel.
    func panel(_ role: String) -> [[String: Any]] { records.filter { $0["panel"] as? String == role } }

    /// The time panel as `"T STATE TEXT"` lines, T with 3 decimals: what the digits showed when.
    var time: [String] {
        panel("time").map { String(format: "%.3f", $0["t"] as? Double ?? -1) + " \($0["state"] ?? "?") \($0["text"] ?? "?")" }
    }
}

/// `run` in virtual time: each config key must change what the panels show.
@Suite(.serialized) struct RunConfigTests {
    @Test func longPressIsRecognisedAtExactlyTheConfiguredHold() async throws {
        let config = "program = \"countdown:1:00\"\n[buttons]\nlong_press_ms = 800\n"
        let held = try await VirtualRun(config: config, ["--events", "0:start,5:stop:0.8", "--until", "8"])
        #expect(held.status == 0, "\(held.stderr)")
        // STOP pauses at once; held 0.8 s it resets (the default would need 2 s).
        #expect(held.time.suffix(3) == ["5.000 paused  0:55", "5.800 ready  1:00", "8.000 ready     "], "\(held.time)")
        #expect(held.stderr.contains("info: reset: ready"))
        let short = try await VirtualRun(config: config, ["--events", "0:start,5:stop:0.799", "--until", "8"])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.time.suffix(2) == ["5.000 paused  0:55", "8.000 paused     "], "1 ms short of the hold: no reset")
    }

    @Test func customProgramFromTheConfigRunsAndIsSaved() async throws {
        let config = "program = \"sprint\"\n[programs]\nsprint = \"3 x 0:20/0:10, prep 0:05\"\n"
        let run = try await VirtualRun(config: config, ["--events", "0:start", "--until", "6"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.time.prefix(7) == ["0.000 running  0:05", "1.000 running  0:04", "2.000 running  0:03", "3.000 running  0:02",
                                       "4.000 running  0:01", "5.000 running  0:20", "6.000 running  0:19"], "\(run.time)")
        #expect(run.panel("round").first?["text"] as? String == "--. 3", "prep of 3 rounds")
        #expect(run.panel("phase").compactMap { $0["text"] as? String }.prefix(2) == ["PREP", "WORK"])
        #expect(run.state?.contains("program=sprint\nstate=running") == true, "\(run.state ?? "no state file")")
    }

    @Test func programOptionNamesAProgramOfTheConfig() async throws {
        let config = "[programs]\nsprint = \"3 x 0:20/0:10, prep 0:05\"\n"
        let run = try await VirtualRun(config: config, ["--program", "sprint", "--events", "0:start", "--until", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.time.prefix(2) == ["0.000 running  0:05", "1.000 running  0:04"], "\(run.time)")
        let unknown = try await VirtualRun(config: config, ["--program", "sprnt", "--until", "2"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("fgb, bjj, deathby[:M]"), "every preset: \(unknown.stderr)")
        #expect(unknown.stderr.contains("programs: sprint"), "and the config's own: \(unknown.stderr)")
    }

    @Test func modeCyclesThePresetsThenTheConfiguredPrograms() async throws {
        let config = "[programs]\nsprint = \"3 x 0:20/0:10\"\n"
        // From boxing, 9 MODE presses pass mma … clock (the 9 presets) and land on sprint.
        let presses = (1...9).map { "\($0):mode" } + ["10:start"]
        let run = try await VirtualRun(config: config, ["--events", presses.joined(separator: ","), "--until", "12"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("info: program sprint\n"), "\(run.stderr)")
        #expect(run.time.contains("11.000 running  0:19"), "\(run.time)")
        #expect(run.panel("round").last { $0["state"] as? String == "running" }?["rounds"] as? Int == 3)
        #expect(run.state?.contains("program=sprint\nstate=running") == true)
    }

    @Test func brightnessScheduleSwitchesAtTheConfiguredWallTime() async throws {
        let config = "program = \"countdown:2:00\"\n[brightness]\nday = 12\nnight = 2\nnight_from = \"18:31\"\n"
        let run = try await VirtualRun(config: config, ["--events", "0:start", "--until", "40", "--wall-time", "18:30:30"])
        #expect(run.status == 0, "\(run.stderr)")
        let levels = run.panel("time").map { (t: $0["t"] as? Double ?? -1, level: $0["brightness"] as? Int ?? -1) }
        #expect(levels.filter { $0.t < 30 }.allSatisfy { $0.level == 12 } && levels.first?.level == 12, "day level before 18:31")
        #expect(levels.filter { $0.t >= 30 }.allSatisfy { $0.level == 2 }, "night level from 18:31:00, 30 s in")
        #expect(run.panel("phase").contains { $0["t"] as? Double == 30 && $0["brightness"] as? Int == 2 }, "every panel dims at once")
    }

    @Test func idleShowsTheWallClockAfterTheConfiguredMinutes() async throws {
        let run = try await VirtualRun(config: "[idle]\nclock_after_minutes = 2\n", ["--until", "121", "--wall-time", "07:00"])
        #expect(run.status == 0, "\(run.stderr)")
        // Ready with boxing, no button pressed: the wall clock from 2 minutes on, colon blinking.
        #expect(run.time == ["0.000 ready  0:10", "120.000 ready 07:02", "120.500 ready 0702", "121.000 ready 07:02", "121.000 ready     "],
                "\(run.time)")
    }

    @Test(arguments: [true, false])
    func resumeAfterRebootFollowsTheConfig(allowed: Bool) async throws {
        // Saved paused 30 s into the round by another boot.
        let saved = """
            roundclock-state 1
            program=countdown:1:00
            state=paused
            elapsed_before_ns=30000000000
            boot_id=00000000-0000-4000-8000-000000000000
            saved_realtime_ns=1700000000000000000

            """
        let config = "program = \"countdown:1:00\"\n[resume]\nafter_reboot = \(allowed)\n"
        let run = try await VirtualRun(config: config, savedState: saved, ["--until", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let first = try #require(run.time.first)
        #expect(first == (allowed ? "0.000 paused  0:30" : "0.000 ready  1:00"), "\(run.stderr)")
        #expect(run.stderr.contains(allowed ? "resumed paused after a reboot" : "after_reboot = false"))
    }

    @Test(arguments: [
        (["run", "--virtual", "--until", "3"], "--virtual works only with --simulate"),
        (["run", "--simulate", "--virtual"], "--virtual needs --until or --events"),
        (["run", "--simulate", "--virtual", "--program", "stopwatch", "--events", "1:start"], "--until is required with --virtual"),
        (["run", "--wall-time", "18:00"], "--wall-time works only with --simulate"),
        (["run", "--simulate", "--wall-time", "7"], "bad --wall-time \"7\""),
    ])
    func virtualRunNeedsTheSimulatorAndAnEnd(arguments: [String], mentions: String) async throws {
        let run = try await CLIRun.run(arguments)
        #expect(run.status == 64, "EX_USAGE")
        #expect(run.stderr.hasPrefix("roundclock: ") && run.stderr.contains(mentions), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
    }
}
