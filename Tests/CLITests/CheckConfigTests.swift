import Foundation
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

    @Test func badValueExits78WithOneLine() async throws {
        let path = temporaryFile("night.toml")
        try "[brightness]\nnight = 16\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await CLIRun.run(["check-config", path])
        #expect(run.status == 78)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "roundclock: \(path): brightness.night: 16 is out of range; allowed are 0 to 15\n")
    }

    @Test func syntaxErrorNamesTheLine() async throws {
        let path = temporaryFile("syntax.toml")
        try "board = \"simulator\"\nprogram = \n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await CLIRun.run(["check-config", path])
        #expect(run.status == 78)
        #expect(run.stderr.hasPrefix("roundclock: \(path): line 2, column 11: not valid TOML"))
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
        #expect(run.stderr == "roundclock: \(dir)/b.toml: i2c.bus: 300 is out of range; allowed are 0 to 255\n")
    }
}
