import Foundation
import Sound
import Testing

/// `roundclock check-config`: exit 0 with a summary, 78 (EX_CONFIG) with one message on stderr.
@Suite struct CheckConfigTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func exampleConfigIsValid() async throws {
        let path = Self.repository.appendingPathComponent("systemd/config.example.toml").path
        let run = try await CLIRun.run(["check-config", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("\(path): OK\n"))
        #expect(run.stdout.contains("program: boxing (47:10)"))
        #expect(run.stdout.contains("custom programs: hiit, sparring"))
        #expect(run.stderr.isEmpty)
    }

    /// The summary's `state:` line, after the one on shutdown and resume: whether the state
    /// directory can be written; one that cannot is no error (the clock runs without keeping
    /// the session). Nothing is created.
    @Test func theStateDirectoryIsChecked() async throws {
        let config = Self.repository.appendingPathComponent("systemd/config.example.toml").path
        let dir = temporaryFile("check-state")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        FileManager.default.createFile(atPath: dir + "/file", contents: Data())
        for (stateDir, line) in [
            (dir, "state: \(dir) writable"),
            (dir + "/new/state", "state: \(dir)/new/state missing; run creates it"),
            (dir + "/file/state", "state: \(dir)/file/state not writable (stat \(dir)/file/state: Not a directory (errno 20)): "
                + "the clock will run without keeping the session"),
        ] {
            let run = try await CLIRun.run(["check-config", config, "--state-dir", stateDir])
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
            #expect(run.stdout.contains("; resume after reboot: yes\n\(line)\n"), "\(run.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/new"), "check-config creates nothing")
    }

    @Test func badValueExits78WithOneLine() async throws {
        let path = temporaryFile("night.toml")
        try "[brightness]\nnight = 16\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await CLIRun.run(["check-config", path])
        #expect(run.status == 78)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "roundclock: \(path): line 2: brightness.night: 16 is out of range; allowed are 0 to 15\n")
    }

    /// A WAV file the config's `[sound]` names is read by check-config: an 8-bit one is one
    /// line naming the config, the key and the file.
    @Test func badWAVFileExits78WithOneLine() async throws {
        let dir = temporaryFile("bad-wav")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var bytes = WAV.encode(PCM(rate: 8_000, channels: 1, samples: [1, 2, 3, 4]))
        bytes[34] = 8
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/x.wav"))
        let config = dir + "/config.toml"
        try "[sound.start]\nsound = \"x.wav\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(["check-config", config])
        #expect(run.status == 78 && run.stdout.isEmpty)
        #expect(run.stderr == "roundclock: \(config): line 2: sound.start.sound: WAV file \"\(dir)/x.wav\": 8-bit samples; use 16-bit PCM\n")
        try "[sound.end]\nsound = \"gone.wav\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let missing = try await CLIRun.run(["check-config", config])
        #expect(missing.status == 78 && missing.stderr.hasPrefix(
            "roundclock: \(config): line 2: sound.end.sound: WAV file \"\(dir)/gone.wav\": cannot open: No such file or directory (errno 2)"))
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }

    @Test func syntaxErrorNamesTheLine() async throws {
        let path = temporaryFile("syntax.toml")
        try "board = \"simulator\"\nprogram = \n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await CLIRun.run(["check-config", path])
        #expect(run.status == 78)
        #expect(run.stderr.hasPrefix("roundclock: \(path): line 2, column 11: not valid TOML"))
    }

    /// Malformed TOML (headers that abort a parser built on toml++), a NUL byte (which could
    /// silently end parsing), a value holding a newline: in the config
    /// and in the board file it names, exit 78 with one line naming the file and the place.
    @Test(arguments: [
        ("[\n", "line 1, column 2: not valid TOML: expected a key"), ("[#]\n", "line 1, column 2"), ("[=]\n", "line 1, column 2"),
        ("[.]\n", "line 1, column 2"), ("[[", "line 1, column 3"), ("[é]\n", "line 1, column 2"),
        ("name = \"simulator\"\u{0}foo = 1\n", "line 1, column 19: not valid TOML: expected the end of the line after the value, found a NUL byte (U+0000)"),
        ("name = \"a\\nb\"\n[display]\non_shutdown = \"a\\nb\"\n", #"on_shutdown: "a\nb" contains a control character"#),
    ])
    func malformedTOMLExits78WithOneLine(text: String, message: String) async throws {
        let dir = temporaryFile("malformed")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/config.toml"))
        try Data("board = \"b.toml\"\n".utf8).write(to: URL(fileURLWithPath: dir + "/board-config.toml"))
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/b.toml"))
        for (config, named) in [("config.toml", "config.toml"), ("board-config.toml", "b.toml")] {
            let run = try await CLIRun.run(["check-config", dir + "/" + config])
            #expect(run.status == 78, "\(config): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "one line: \(run.stderr.debugDescription)")
            #expect(run.stderr.hasPrefix("roundclock: \(dir)/\(named): "), "\(run.stderr)")
            if named == "config.toml" || !message.contains("on_shutdown") {
                #expect(run.stderr.contains(message), "\(run.stderr)")
            }
        }
    }

    @Test func missingFileExits78() async throws {
        let run = try await CLIRun.run(["check-config", "/nonexistent/roundclock.toml"])
        #expect(run.status == 78)
        #expect(run.stderr == "roundclock: /nonexistent/roundclock.toml: cannot open: No such file or directory (errno 2)\n")
    }

    @Test func defaultPathIsEtc() async throws {
        let run = try await CLIRun.run(["check-config", "--help"])
        #expect(run.stdout.contains("/etc/roundclock/config.toml"))
    }

    @Test func badBoardInsideAValidConfig() async throws {
        let dir = temporaryFile("cfgdir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "board = \"b.toml\"\n".write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        try "name = \"b\"\n[[panels]]\nrole = \"time\"\nkind = \"seg7x4\"\naddress = 0x70\n[i2c]\nbus = 300\n".write(toFile: dir + "/b.toml", atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(["check-config", dir + "/config.toml"])
        #expect(run.status == 78)
        #expect(run.stderr == "roundclock: \(dir)/b.toml: line 7: i2c.bus: 300 is out of range; allowed are 0 to 255\n")
    }
}
