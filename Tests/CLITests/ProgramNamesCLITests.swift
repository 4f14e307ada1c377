import Foundation
import Testing
import TestSupport

/// A name always means one program: no config or editor program takes a preset's name, a
/// saved file of an older version that has one keeps the program under a new name, a save
/// over a saved program says what it replaced, and a mistyped name gets the nearest one.
@Suite(.serialized) struct ProgramNamesCLITests {
    typealias Editor = ProgramEditorCLITests

    static func snippet(_ name: String, time: String) -> String {
        "[programs.\(name)]\nintervals = [ {label = \"WORK\", time = \"\(time)\"} ]\n"
    }

    @Test func aConfigProgramNamedAsAPresetIsOneLineAndExit78() async throws {
        let config = temporaryFile("fgb.toml")
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "[programs]\nfgb = \"8 x 0:20/0:10\"\n".write(toFile: config, atomically: false, encoding: .utf8)
        for arguments in [["check-config", config], ["programs", "--config", config]] {
            let run = try await CLIRun.run(arguments)
            #expect(run.status == 78, "\(arguments): \(run.stdout)")
            #expect(run.stderr == "roundclock: \(config): line 2: programs.fgb: \"fgb\" is a preset name; pick another name (reserved: boxing, mma, "
                + "muaythai, tabata, emom, amrap, fortime, countdown, stopwatch, clock, fgb, bjj, deathby)\n", "\(arguments)")
        }
    }

    @Test func theEditorSavesNoPresetNameAndSaysWhatASaveReplaced() async throws {
        let stateDir = try Editor.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDir) }
        let clock = try ControlledClock(["--state-dir", stateDir])
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        for name in ["fgb", "bjj", "deathby"] {
            let reply = try remote.request(Editor.request("program-save", toml: Self.snippet(name, time: "0:07")))
            #expect(reply.hasPrefix(#"{"ok": false, "error": "program: programs.\#(name): \"\#(name)\" is a preset name; "#), "\(reply)")
        }
        #expect(try Editor.savedNames(remote) == [])

        let first = try Editor.object(try remote.request(Editor.request("program-save", toml: Self.snippet("wod", time: "0:07"))))
        #expect(first["ok"] as? Bool == true && first["replaced"] == nil, "\(first)")
        let second = try Editor.object(try remote.request(Editor.request("program-save", toml: Self.snippet("wod", time: "0:09"))))
        let replaced = try #require(second["replaced"] as? [String: Any], "\(second)")
        #expect(replaced["name"] as? String == "wod" && replaced["total"] as? String == "0:07", "\(replaced)")
        #expect((second["program"] as? [String: Any])?["total"] as? String == "0:09")
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }

    @Test func aSavedProgramOfAPresetsNameIsKeptUnderANewNameAndThePresetRuns() async throws {
        let stateDir = try Editor.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDir) }
        let file = Self.snippet("fgb", time: "0:07") + "\n" + Self.snippet("fgb-saved", time: "0:08")
        try file.write(toFile: stateDir + "/programs.toml", atomically: false, encoding: .utf8)
        let clock = try ControlledClock(["--state-dir", stateDir])
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        #expect(try Editor.savedNames(remote) == ["fgb-saved", "fgb-saved-2"])
        #expect(clock.log.contains("programs: \(stateDir)/programs.toml: fgb is a preset's name; the saved program is renamed fgb-saved-2"),
                "\(clock.log)")
        let kept = try String(contentsOfFile: stateDir + "/programs.toml", encoding: .utf8)
        #expect(kept == Self.snippet("fgb-saved-2", time: "0:07") + "\n" + Self.snippet("fgb-saved", time: "0:08"))

        let subscriber = try await clock.connect()
        try subscriber.send(#"{"command": "subscribe"}"#)
        #expect(try remote.request(#"{"command": "program", "program": "fgb"}"#) == Editor.ok)
        let shown = try subscriber.state { $0["program"] as? String == "fgb" }
        #expect((shown["panels"] as? [String: String]) == ["phase": "FGB ", "round": "----", "time": " 0:10"], "the preset, not the 0:07 program: \(shown)")
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }

    @Test func aMistypedProgramGetsTheNearestName() async throws {
        let run = try await CLIRun.run(["simulate", "--virtual", "--program", "tabbata", "--until", "1"])
        #expect(run.status == 64, "\(run.stdout)")
        #expect(run.stderr.contains(#"or a line like "10 x 0:45/0:15, prep 0:10, warn 0:05"; did you mean "tabata"?"#), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").filter { $0.contains("did you mean") }.count == 1)

        let config = temporaryFile("sparring.toml")
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "board = \"simulator\"\n[programs]\nsparring = \"6 x 2:00/0:30\"\n".write(toFile: config, atomically: false, encoding: .utf8)
        let own = try await CLIRun.run(["run", "--simulate", "--virtual", "--config", config, "--program", "sparing", "--until", "1"])
        #expect(own.status == 64, "\(own.stdout)")
        #expect(own.stderr.contains(#"; or one of \#(config)'s programs: sparring; did you mean "sparring"?"#), "\(own.stderr)")
    }
}
