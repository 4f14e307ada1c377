import Foundation
import Testing
import TestSupport

/// The program editor's requests through a real `roundclock run --simulate --state-dir`:
/// a saved program is checked by the clock's parser, kept in the state directory, selected
/// like a `[programs]` entry, kept over a restart and deleted; a corrupt file or a refused
/// write is one line and the clock runs on.
@Suite(.serialized) struct ProgramEditorCLITests {
    static let ok = #"{"ok": true}"#
    static let circuit = "[programs.circuit]\nprep = \"0:05\"\nrounds = 2\nrest = \"0:15\"\n"
        + "intervals = [ {label = \"ROW\", time = \"0:40\", count = \"up\"}, {label = \"WALK\", time = \"0:10\", kind = \"rest\"} ]\n"

    static func request(_ command: String, toml: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: ["command": command, "toml": toml]), as: UTF8.self)
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    static func savedNames(_ remote: ControlConnection) throws -> [String] {
        let reply = try object(try remote.request(#"{"command": "programs"}"#))
        let programs = try #require(reply["programs"] as? [[String: Any]])
        return programs.filter { $0["source"] as? String == "saved" }.compactMap { $0["name"] as? String }
    }

    static func stateDirectory() throws -> String {
        let directory = temporaryFile("editor-state")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aSavedProgramIsSelectedKeptOverARestartAndDeleted() async throws {
        let stateDir = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDir) }
        let clock = try ControlledClock(["--state-dir", stateDir])
        defer { clock.removeFiles() }
        let remote = try await clock.connect()

        let checked = try Self.object(try remote.request(Self.request("program-check", toml: Self.circuit)))
        let plan = try #require(checked["program"] as? [String: Any])
        #expect(plan["total"] as? String == "2:00" && plan["total_seconds"] as? Int == 120)
        let phases = try #require(plan["phases"] as? [[String: Any]])
        #expect(phases.map { $0["kind"] as? String ?? "" } == ["prep", "work", "rest", "rest", "work", "rest"])
        #expect(phases[1]["label"] as? String == "ROW" && phases[1]["count"] as? String == "up" && phases[1]["seconds"] as? Int == 40)
        #expect(try Self.savedNames(remote) == [], "a check saves nothing")

        let bad = Self.circuit.replacingOccurrences(of: "\"0:40\"", with: "\"0:4x\"")
        #expect(try remote.request(Self.request("program-save", toml: bad)) == #"{"ok": false, "error": "program: programs.circuit.intervals[1].time: \"0:4x\" is not a usable time; use \"M:SS\", \"H:MM:SS\" or seconds, longer than 0:00 and at most 24:00:00"}"#)
        let saved = try Self.object(try remote.request(Self.request("program-save", toml: Self.circuit)))
        #expect(saved["ok"] as? Bool == true)
        #expect(try String(contentsOfFile: stateDir + "/programs.toml", encoding: .utf8) == Self.circuit)
        #expect(try Self.savedNames(remote) == ["circuit"])
        #expect(try remote.request(Self.request("program-save", toml: "[programs.boxing]\nbase = \"tabata\"\n")).contains("is a preset name"))

        let subscriber = try await clock.connect()
        try subscriber.send(#"{"command": "subscribe"}"#)
        #expect(try remote.request(#"{"command": "program", "program": "circuit"}"#) == Self.ok)
        _ = try subscriber.state { $0["program"] as? String == "circuit" && $0["rounds"] as? Int == 2 }
        #expect(try remote.request(#"{"command": "start"}"#) == Self.ok)
        _ = try subscriber.state { $0["state"] as? String == "running" }
        #expect(try remote.request(Self.request("program-save", toml: Self.circuit))
                == #"{"ok": false, "error": "program-save: circuit is the program underway (the clock is running); reset the clock first (hold STOP)"}"#)
        #expect(try remote.request(#"{"command": "program-delete", "program": "circuit"}"#)
                == #"{"ok": false, "error": "program-delete: circuit is the program underway (the clock is running); reset the clock first (hold STOP)"}"#)
        #expect(try remote.request(#"{"command": "reset"}"#) == Self.ok)
        _ = try subscriber.state { $0["state"] as? String == "ready" }
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
        #expect(clock.log.contains("programs: \(stateDir)/programs.toml holds 1 saved programs"), "\(clock.log)")

        // After a restart: still saved, still the selected program, then deleted.
        let again = try ControlledClock(["--state-dir", stateDir])
        defer { again.removeFiles() }
        let watcher = try await again.connect()
        try watcher.send(#"{"command": "subscribe"}"#)
        _ = try watcher.state { $0["program"] as? String == "circuit" }
        let remoteAgain = try await again.connect()
        #expect(try Self.savedNames(remoteAgain) == ["circuit"])
        // Deleted while the ready clock shows it: the clock shows the first program MODE cycles.
        #expect(try remoteAgain.request(#"{"command": "program-delete", "program": "circuit"}"#) == Self.ok)
        _ = try watcher.state { $0["program"] as? String == "boxing" }
        #expect(try Self.savedNames(remoteAgain) == [])
        #expect(try remoteAgain.request(#"{"command": "program", "program": "circuit"}"#)
                .hasPrefix(#"{"ok": false, "error": "bad program \"circuit\": "#))
        #expect(try remoteAgain.request(#"{"command": "program-delete", "program": "circuit"}"#)
                == #"{"ok": false, "error": "program-delete: \"circuit\" is not a saved program (none is saved)"}"#)
        #expect(try await again.stop() == "exit 0", "\(again.log)")
    }

    @Test func aCorruptFileIsSetAsideAndARefusedWriteLeavesTheClockRunning() async throws {
        let stateDir = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDir) }
        try "[programs.a\n".write(toFile: stateDir + "/programs.toml", atomically: false, encoding: .utf8)
        let clock = try ControlledClock(["--state-dir", stateDir])
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        #expect(try Self.savedNames(remote) == [])
        #expect(clock.log.contains("programs: \(stateDir)/programs.toml: line 1, column"), "\(clock.log)")
        #expect(clock.log.contains("set aside as \(stateDir)/programs.toml.corrupt; starting with no saved programs"), "\(clock.log)")
        #expect(try String(contentsOfFile: stateDir + "/programs.toml.corrupt", encoding: .utf8) == "[programs.a\n")

        // A directory where the file goes: rename(2) fails; the reply says so, nothing is saved.
        try FileManager.default.createDirectory(atPath: stateDir + "/programs.toml/x", withIntermediateDirectories: true)
        let refused = try remote.request(Self.request("program-save", toml: Self.circuit))
        #expect(refused.hasPrefix(#"{"ok": false, "error": "program-save: cannot write \#(stateDir)/programs.toml: rename "#), "\(refused)")
        #expect(try Self.savedNames(remote) == [])
        #expect(try remote.request(#"{"command": "program", "program": "circuit"}"#).hasPrefix(#"{"ok": false"#))
        #expect(try remote.request(#"{"command": "start"}"#) == Self.ok)
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }

    @Test func oneProgramThatNoLongerReadsLosesNoneOfTheOthers() async throws {
        let stateDir = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDir) }
        let bad = "[programs.broken]\nintervals = [ {label = \"ROW\", time = \"0:4x\"} ]\n"
        let file = Self.circuit + "\n" + bad + "\n" + Self.circuit.replacingOccurrences(of: "circuit", with: "hill")
        try file.write(toFile: stateDir + "/programs.toml", atomically: false, encoding: .utf8)
        let clock = try ControlledClock(["--state-dir", stateDir])
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        #expect(try Self.savedNames(remote) == ["circuit", "hill"])
        #expect(clock.log.contains("programs.broken.intervals[1].time: \"0:4x\" is not a usable time"), "\(clock.log)")
        #expect(clock.log.contains("set aside as \(stateDir)/programs.toml.corrupt; starting with the 2 programs that read on their own"))
        #expect(try String(contentsOfFile: stateDir + "/programs.toml.corrupt", encoding: .utf8) == file)
        let kept = try String(contentsOfFile: stateDir + "/programs.toml", encoding: .utf8)
        #expect(kept.contains("[programs.circuit]") && kept.contains("[programs.hill]") && !kept.contains("broken"))
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }

    @Test func aConnectionThatSendsManyEditorRequestsAtOnceGetsAtMostFourRunAndTheRestRefused() async throws {
        let clock = try ControlledClock()
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        // Ten requests in one write: the clock reads them in one go, before any reply.
        try remote.send(Array(repeating: #"{"command": "programs"}"#, count: 10).joined(separator: "\n"))
        var replies: [String] = []
        for _ in 0..<10 { replies.append(try #require(try remote.line())) }
        let refused = #"{"ok": false, "error": "programs: 4 editor requests of this connection wait for their replies already; read them first"}"#
        #expect(replies.filter { $0 == refused }.count == 6, "\(replies)")
        #expect(replies.filter { $0.hasPrefix(#"{"ok": true"#) }.count == 4)
        // Read, the connection is served again.
        #expect(try Self.object(try remote.request(#"{"command": "programs"}"#))["ok"] as? Bool == true)
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }

    @Test func withoutAStateDirectoryProgramsAreCheckedButNotSaved() async throws {
        let clock = try ControlledClock()
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        #expect(try Self.object(try remote.request(Self.request("program-check", toml: Self.circuit)))["ok"] as? Bool == true)
        #expect(try remote.request(Self.request("program-save", toml: Self.circuit))
                == #"{"ok": false, "error": "program-save: this clock has no state directory to keep programs in (run --state-dir DIR)"}"#)
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }
}
