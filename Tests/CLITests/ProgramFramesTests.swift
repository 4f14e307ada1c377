import Foundation
import Testing

/// Programs end to end (presets, structured programs, overtime, class starts): exact instants
/// and texts in the frames file.
@Suite(.serialized) struct ProgramFramesTests {
    /// `simulate --virtual` of `program`: every record as `"T panel TEXT"` or `"T signal NAME"`.
    func simulate(_ program: String, _ extra: [String] = []) async throws -> (records: [String], stderr: String) {
        let frames = temporaryFile("program.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["simulate", "--virtual", "--no-tty", "--program", program, "--frames", frames] + extra)
        #expect(run.status == 0, "\(run.stderr)")
        return (try jsonLines(frames).map { Self.line($0.object) }, run.stderr)
    }

    static func line(_ o: [String: Any]) -> String {
        let t = String(format: "%.3f", o["t"] as? Double ?? -1)
        if let signal = o["signal"] as? String { return "\(t) signal \(signal)" }
        return "\(t) \(o["panel"] ?? "?") \(o["text"] ?? "?")"
    }

    @Test func fightGoneBadShowsStationSetAndRound() async throws {
        let (records, _) = try await simulate("fgb")
        for expected in ["0.000 round ----", "0.000 phase PREP", "10.000 round 1-01", "10.000 phase WALL", "10.000 signal start",
                         "70.000 phase SDHP", "250.000 phase ROW ", "310.000 phase REST", "310.000 signal end", "310.000 time  1:00",
                         "370.000 round 2-01", "370.000 phase WALL", "730.000 round 3-01", "1030.000 phase DONE", "1030.000 signal finish"] {
            #expect(records.contains(expected), "\(expected)")
        }
        #expect(records.filter { $0.hasSuffix("signal start") }.count == 15, "one start per station")
    }

    @Test func deathByShowsTheRepTargetAndBjjSwitchesAtHalfTime() async throws {
        let (death, _) = try await simulate("deathby:12")
        for expected in ["10.000 phase    1", "10.000 round  1.12", "670.000 phase   12", "670.000 round 12.12", "730.000 phase DONE"] {
            #expect(death.contains(expected), "\(expected)")
        }
        let (bjj, _) = try await simulate("bjj", ["--until", "620"])
        #expect(bjj.filter { $0.hasSuffix("signal switch") } == ["190.000 signal switch", "610.000 signal switch"])
        #expect(bjj.contains("190.000 time  3:00") && bjj.contains("180.000 signal warning") == false)
    }

    @Test func structuredProgramFromTheConfigWithCountdownBeepsAndHalfway() async throws {
        let config = """
            program = "wod"
            [programs.wod]
            prep = "0:05"
            rounds = 2
            rest = "0:10"
            countdown_beeps = 2
            halfway = true
            intervals = [ {label = "ROW", time = "0:20"}, {label = "BIKE", time = "0:10", count = "up"} ]
            """
        let run = try await VirtualRun(config: config, ["--events", "0:start", "--until", "70"])
        #expect(run.status == 0, "\(run.stderr)")
        let records = run.records.map(ProgramFramesTests.line)
        let signals = records.filter { $0.contains(" signal ") }
        #expect(signals.prefix(12) == ["3.000 signal prep-tick", "4.000 signal prep-tick", "5.000 signal start", "15.000 signal halfway",
                                       "23.000 signal tick", "24.000 signal tick", "25.000 signal start", "30.000 signal halfway",
                                       "33.000 signal tick", "34.000 signal tick", "35.000 signal end", "43.000 signal tick"], "\(signals)")
        for expected in ["5.000 phase ROW ", "5.000 round  1. 2", "25.000 phase BIKE", "25.000 time  0:00", "34.000 time  0:09",
                         "35.000 phase REST", "45.000 round  2. 2"] {
            #expect(records.contains(expected), "\(expected)")
        }
        #expect(run.state?.contains("program=wod\n") == true)
    }

    @Test func overtimeShowsPlusMinutesSecondsPastTheCap() async throws {
        let config = "program = \"ft\"\n[programs.ft]\nbase = \"fortime:1\"\novertime = true\n"
        let run = try await VirtualRun(config: config, ["--events", "0:start,80:stop", "--until", "82"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.time.contains("69.000 running  0:59"))
        #expect(run.time.contains("70.000 running +0:00"), "\(run.time)")
        #expect(run.time.contains("71.000 running +0:01"))
        #expect(run.time.contains("80.000 paused +0:10"), "STOP ends the overtime")
        let records = run.records.map(ProgramFramesTests.line)
        #expect(records.contains("70.000 signal finish") && records.contains("70.000 phase OVER"))
    }

    @Test func modeHeldSkipsAndIsLoggedAndSaved() async throws {
        let run = try await VirtualRun(config: "program = \"boxing\"\n", ["--events", "0:start,3:mode:2.5", "--until", "8"])
        #expect(run.status == 0, "\(run.stderr)")
        // Held from 3 s: at 5 s the prep is skipped, the first round starts.
        #expect(run.time.contains("4.000 running  0:06"))
        #expect(run.time.contains("5.000 running  3:00"), "\(run.time)")
        #expect(run.time.contains("8.000 running  2:57"))
        #expect(run.stderr.contains("info: skip: running, round 1 of 12, work"), "\(run.stderr)")
        #expect(run.state?.contains("elapsed_before_ns=10000000000\n") == true, "saved at the skip: \(run.state ?? "none")")
    }

    @Test func modeCountsAMRAPRoundsAndDoesNothingMidRoundElsewhere() async throws {
        let amrap = try await VirtualRun(config: "program = \"amrap:1\"\n", ["--events", "0:start,5:mode,15:mode,20:mode:0.5", "--until", "25"])
        #expect(amrap.status == 0, "\(amrap.stderr)")
        let rounds = amrap.panel("round").map(ProgramFramesTests.line)
        #expect(rounds == ["0.000 round     ", "15.100 round    1", "20.500 round    2", "25.000 round     "],
                "blank, not during prep, on release, then the shutdown picture: \(rounds)")
        #expect(amrap.stderr.contains("info: round counted: running"))
        let boxing = try await VirtualRun(config: "program = \"boxing\"\n", ["--events", "0:start,30:mode,40:mode:1.9", "--until", "45"])
        #expect(boxing.status == 0)
        #expect(boxing.time.contains("45.000 running  2:25"), "short MODE presses mid-round change nothing")
        #expect(!boxing.stderr.contains("skip") && !boxing.stderr.contains("counted"))
    }

    @Test func badStructuredProgramsExit78OnOneLine() async throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("RoundClockConfigTests/BadConfigs")
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasPrefix("programs-structured-") }
        #expect(files.count >= 15)
        for file in files {
            let run = try await CLIRun.run(["check-config", corpus.appendingPathComponent(file).path])
            #expect(run.status == 78, "\(file)")
            #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains(": programs.wod"), "\(file): \(run.stderr)")
        }
    }
}

extension ProgramFramesTests {
    @Test func classStartsByItselfOnTheWallClockSecondAndNotTwiceAfterARestart() async throws {
        let config = "program = \"countdown:1:00\"\nstart_at = [\"06:00\", \"18:30\"]\n"
        let first = try await VirtualRun(config: config, ["--wall-time", "18:29:50", "--events", "20:stop,21:stop", "--until", "25"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Array(first.time.prefix(3)) == ["0.000 ready -0:10", "1.000 ready -0:09", "2.000 ready -0:08"], "\(first.time)")
        #expect(first.time.contains("9.000 ready -0:01"))
        #expect(first.time.contains("10.000 running  1:00"), "started at 18:30:00 exactly: \(first.time)")
        #expect(first.time.contains("20.000 paused  0:50"))
        #expect(first.time.contains("21.000 ready -9:59"), "reset: counts to 06:00 tomorrow")
        #expect(first.stderr.contains("info: start: running, work"))
        let saved = try #require(first.state)
        #expect(saved.contains("state=ready\n") && saved.contains("class_slot_local_ns="), "\(saved)")
        // Restarted before 18:30 by a clock stepped back (NTP, a stale clock after a reboot):
        // the class that already ran does not start again.
        let second = try await VirtualRun(config: config, savedState: saved, ["--wall-time", "18:29:55", "--until", "10"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.time.first == "0.000 ready -9:59", "counts to the next class, 06:00: \(second.time)")
        #expect(!second.time.contains { $0.contains("running") }, "\(second.time)")
    }
}

extension ProgramFramesTests {
    @Test func programsListsTheNewPresetsAndTheConfigsStructuredPrograms() async throws {
        let listed = try await CLIRun.run(["programs"])
        #expect(listed.status == 0)
        for (name, total) in [("fgb", "17:10"), ("bjj", "41:10"), ("deathby:20", "20:10")] {
            #expect(listed.stdout.split(separator: "\n").contains { $0.hasPrefix(name + " ") && $0.contains(" \(total) ") }, "\(name)")
        }
        let config = temporaryFile("programs.toml")
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "[programs.wod]\nbase = \"fortime:20\"\novertime = true\n".write(toFile: config, atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(["programs", "--config", config])
        #expect(run.stdout.contains("wod             20:10+      prep 0:10, 1 × 20:00 count-up work, then overtime +M:SS"), "\(run.stdout)")
        try "[programs.wod]\nbase = \"clock\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try await CLIRun.run(["programs", "--config", config])
        #expect(bad.status == 78 && bad.stderr.split(separator: "\n").count == 1 && bad.stderr.contains("programs.wod.base"), "\(bad.stderr)")
    }
}
