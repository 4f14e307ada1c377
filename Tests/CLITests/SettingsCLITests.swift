import Foundation
import Testing
import TestSupport

/// The setup page's settings through a real `roundclock run --simulate --state-dir`: a change
/// is checked, saved in the state directory, reaches the panels at once, stays over a
/// restart and through a power cut mid-save; `check-config` shows where each setting comes
/// from and `roundclock settings reset` drops them.
@Suite(.serialized) struct SettingsCLITests {
    static func set(_ values: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: ["command": "settings-set", "values": values], options: .sortedKeys), as: UTF8.self)
    }

    /// A reply's object of settings with each value as text.
    static func texts(_ object: Any?) -> [String: String]? {
        (object as? [String: Any])?.mapValues { "\($0)" }
    }

    static func directory(_ name: String) throws -> String {
        let directory = temporaryFile(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func config(in directory: String) throws -> String {
        let path = directory + "/config.toml"
        try "program = \"tabata\"\n\n[brightness]\nday = 12\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The newest frame's brightness, waited for until `expected` (frames are written as they change).
    static func waitForBrightness(_ expected: Int, frames: String) async throws {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .seconds(60))
        var last = ""
        while clock.now < end {
            last = (try? String(contentsOfFile: frames, encoding: .utf8))?.split(separator: "\n").last.map(String.init) ?? ""
            if last.contains("\"brightness\": \(expected),") { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no frame with brightness \(expected) within 60 s; last: \(last)")
    }

    @Test func aSettingIsCheckedSavedShownAtOnceAndKeptOverARestart() async throws {
        let dir = try Self.directory("settings-cli")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try Self.config(in: dir)
        let clock = try ControlledClock(["--config", config, "--state-dir", dir])
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        try await Self.waitForBrightness(12, frames: clock.frames)

        let refused = try remote.request(Self.set(["brightness.day": 30]))
        #expect(refused == #"{"ok": false, "error": "settings: brightness.day: 30 is out of range; allowed are 0 to 15"}"#)
        #expect(!FileManager.default.fileExists(atPath: dir + "/settings.toml"), "a refused value saves nothing")
        #expect(try remote.request(Self.set(["remote.pin": "1234"])).contains("the setup page cannot set this key"))

        let reply = try ProgramEditorCLITests.object(try remote.request(Self.set(["brightness.day": 3, "program": "emom"])))
        #expect(reply["ok"] as? Bool == true)
        #expect(Self.texts(reply["settings"]) == ["brightness.day": "3", "program": "emom"])
        let values = try #require(reply["values"] as? [String: Any])
        #expect(values["brightness.day"] as? Int == 3 && values["program"] as? String == "emom:10")
        try await Self.waitForBrightness(3, frames: clock.frames)
        #expect(try String(contentsOfFile: dir + "/settings.toml", encoding: .utf8) == "program = \"emom\"\n\n[brightness]\nday = 3\n")

        // The program changes only while the clock is ready, never under a round.
        let watcher = try await clock.connect()
        try watcher.send(#"{"command": "subscribe"}"#)
        _ = try watcher.state { $0["program"] as? String == "emom:10" }
        #expect(try remote.request(#"{"command": "start"}"#) == ProgramEditorCLITests.ok)
        _ = try watcher.state { $0["state"] as? String == "running" }
        #expect(try ProgramEditorCLITests.object(try remote.request(Self.set(["program": "boxing"])))["ok"] as? Bool == true)
        let shownSettings = try ProgramEditorCLITests.object(try remote.request(#"{"command": "settings"}"#))
        #expect(Self.texts(shownSettings["settings"]) == ["brightness.day": "3", "program": "boxing"])
        #expect(try remote.request(#"{"command": "reset"}"#) == ProgramEditorCLITests.ok)
        _ = try watcher.state { $0["state"] as? String == "ready" && $0["program"] as? String == "emom:10" }
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")

        // A restart comes up with the saved settings over the file.
        let again = try ControlledClock(["--config", config, "--state-dir", dir])
        defer { again.removeFiles() }
        let watcherAgain = try await again.connect()
        try watcherAgain.send(#"{"command": "subscribe"}"#)
        try await Self.waitForBrightness(3, frames: again.frames)
        #expect(try await again.stop() == "exit 0", "\(again.log)")

        let checked = try await CLIRun.run(["check-config", config, "--state-dir", dir])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("\nbrightness: 3\n"))
        #expect(checked.stdout.contains("settings: \(config), then the setup page's \(dir)/settings.toml; each from:\n"))
        #expect(checked.stdout.contains("  brightness.day = 3                <- \(dir)/settings.toml (the setup page, over the file's 12)\n"))
        #expect(checked.stdout.contains("  program = \"boxing\"                <- \(dir)/settings.toml (the setup page, over the file's \"tabata\")\n"))

        let shown = try await CLIRun.run(["settings", "show", "--control", dir + "/none.sock", "--state-dir", dir])
        #expect(shown.status == 0 && shown.stdout == "program = \"boxing\"\nbrightness.day = 3\n", "\(shown)")
        let reset = try await CLIRun.run(["settings", "reset", "--control", dir + "/none.sock", "--state-dir", dir])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout == "settings: reset (\(dir)/settings.toml removed; no clock listens at \(dir)/none.sock)\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/settings.toml"))
    }

    @Test func aProgramSavedFromTheEditorCanBeTheProgramAtStart() async throws {
        let dir = try Self.directory("settings-saved-program")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try Self.config(in: dir)
        let clock = try ControlledClock(["--config", config, "--state-dir", dir])
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        let saved = try ProgramEditorCLITests.object(try remote.request(ProgramEditorCLITests.request("program-save", toml: ProgramEditorCLITests.circuit)))
        #expect(saved["ok"] as? Bool == true)
        let reply = try ProgramEditorCLITests.object(try remote.request(Self.set(["program": "circuit"])))
        #expect(reply["ok"] as? Bool == true, "\(reply)")
        #expect((reply["values"] as? [String: Any])?["program"] as? String == "circuit")
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
        let again = try ControlledClock(["--config", config, "--state-dir", dir])
        defer { again.removeFiles() }
        let watcher = try await again.connect()
        try watcher.send(#"{"command": "subscribe"}"#)
        _ = try watcher.state { $0["program"] as? String == "circuit" && $0["rounds"] as? Int == 2 }
        #expect(try await again.stop() == "exit 0", "\(again.log)")
    }

    @Test func settingsResetReachesTheRunningClock() async throws {
        let dir = try Self.directory("settings-reset")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try Self.config(in: dir)
        try "[brightness]\nday = 5\n".write(toFile: dir + "/settings.toml", atomically: true, encoding: .utf8)
        let clock = try ControlledClock(["--config", config, "--state-dir", dir])
        defer { clock.removeFiles() }
        _ = try await clock.connect()
        try await Self.waitForBrightness(5, frames: clock.frames)
        let reset = try await CLIRun.run(["settings", "reset", "--control", clock.socket])
        #expect(reset.status == 0 && reset.stdout == "settings: reset; the clock at \(clock.socket) runs on its config file alone\n", "\(reset)")
        try await Self.waitForBrightness(12, frames: clock.frames)
        #expect(!FileManager.default.fileExists(atPath: dir + "/settings.toml"))
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }

    @Test func aCorruptFileIsSetAsideAndTheClockRunsOnTheConfigFile() async throws {
        let dir = try Self.directory("settings-corrupt")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try Self.config(in: dir)
        try "[brightness\nday = ".write(toFile: dir + "/settings.toml", atomically: true, encoding: .utf8)
        let clock = try ControlledClock(["--config", config, "--state-dir", dir])
        defer { clock.removeFiles() }
        _ = try await clock.connect()
        try await Self.waitForBrightness(12, frames: clock.frames)
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
        #expect(clock.log.contains("settings: \(dir)/settings.toml: line 1, column 12: not valid TOML"), "\(clock.log)")
        #expect(clock.log.contains("set aside as \(dir)/settings.toml.corrupt; starting with the config file alone"), "\(clock.log)")
        #expect(FileManager.default.fileExists(atPath: dir + "/settings.toml.corrupt"))
    }

    /// The clock killed (SIGKILL, a power cut to the process) at seeded random instants while
    /// the page saves one value after another: the file is always a whole save, never a mix
    /// or a stub, and the next start runs with the last save the clock answered or a later one.
    @Test func aCutMidSaveLeavesTheOldOrTheNewSettings() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SETTINGS_CUT_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("aCutMidSaveLeavesTheOldOrTheNewSettings: seed \(seed) (SETTINGS_CUT_SEED=\(seed) replays it)")
        var random = SplitMix64(seed: seed)
        let dir = try Self.directory("settings-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try Self.config(in: dir)
        for cut in 1...5 {
            let clock = try ControlledClock(["--config", config, "--state-dir", dir])
            defer { clock.removeFiles() }
            let remote = try await clock.connect()
            let saves = Int.random(in: 1...40, using: &random)
            var answered: [Int] = []
            for n in 0..<saves {
                let level = (cut * 7 + n) % 16
                #expect(try remote.request(Self.set(["brightness.day": level, "brightness.night_from": "2\(n % 4):00"])).hasPrefix(#"{"ok": true"#))
                answered.append(level)
            }
            // One more save in flight when the cut comes.
            try remote.send(Self.set(["brightness.day": 15, "brightness.night_from": "23:00"]))
            kill(clock.pid, SIGKILL)
            _ = try await SignalTests.wait(clock.pid)
            let text = try String(contentsOfFile: dir + "/settings.toml", encoding: .utf8)
            let day = text.split(separator: "\n").first { $0.hasPrefix("day = ") }.flatMap { Int($0.dropFirst(6)) }
            #expect(day == answered.last || day == 15, "cut \(cut) (seed \(seed)): \(text)")
            #expect(text.hasPrefix("[brightness]\n") && text.hasSuffix("\n") && text.split(separator: "\n").count == 3, "cut \(cut): \(text)")
            let entries = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("settings") }
            #expect(entries == ["settings.toml"], "no torn or set-aside file: \(entries)")
        }
        let checked = try await CLIRun.run(["check-config", config, "--state-dir", dir])
        #expect(checked.status == 0 && checked.stdout.contains("<- \(dir)/settings.toml (the setup page"), "\(checked)")
    }
}
