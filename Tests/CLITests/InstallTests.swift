import Foundation
import Testing

/// Runs a shell script of the repository with extra environment.
func runScript(_ relativePath: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> CLIRun {
    try await CLIRun.run(URL(fileURLWithPath: "/bin/sh"), [CheckConfigTests.repository.appendingPathComponent(relativePath).path] + arguments,
                   environment: environment)
}

/// `scripts/install.sh` staged with DESTDIR, and the unit file check.
@Suite struct InstallTests {
    func tree(_ root: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { (try? FileManager.default.attributesOfItem(atPath: "\(root)/\($0)")[.type] as? FileAttributeType) == .typeRegular }.sorted()
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func stagesTheTreeWithDestdir() async throws {
        let root = temporaryFile("destdir")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let binary = CLIRun.binary.path
        let run = try await runScript("scripts/install.sh", ["--binary", binary], environment: ["DESTDIR": root])
        #expect(run.status == 0, "\(run.stderr)")
        // README's links lead into docs/, installed beside it.
        let docs = tree(CheckConfigTests.repository.appendingPathComponent("docs").path).map { "usr/local/share/doc/roundclock/docs/" + $0 }
        #expect(docs.contains("usr/local/share/doc/roundclock/docs/configuration.md"))
        #expect(tree(root) == [
            "etc/modules-load.d/roundclock.conf",
            "etc/roundclock/config.example.toml",
            "etc/roundclock/config.toml",
            "etc/systemd/system/roundclock-card.service",
            "etc/systemd/system/roundclock.service",
            "etc/sysusers.d/roundclock.conf",
            "usr/local/bin/roundclock",
            "usr/local/share/doc/roundclock/README.md",
        ] + docs + [
            "usr/local/share/man/man1/roundclock.1",
            "usr/local/share/man/man5/roundclock.toml.5",
            "usr/local/share/roundclock/boards/bigdigits.toml",
            "usr/local/share/roundclock/boards/generic.toml",
            "usr/local/share/roundclock/boards/pi-zero-2w.toml",
            "usr/local/share/roundclock/boards/pi3.toml",
            "usr/local/share/roundclock/boards/pi4.toml",
            "usr/local/share/roundclock/boards/pi5.toml",
            "usr/local/share/roundclock/boards/simulator.toml",
        ])
        #expect(try mode("\(root)/usr/local/bin/roundclock") == 0o755)
        #expect(try mode("\(root)/etc/systemd/system/roundclock.service") == 0o644)
        let unit = try String(contentsOfFile: "\(root)/etc/systemd/system/roundclock.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=/usr/local/bin/roundclock run --config /etc/roundclock/config.toml\n"))
        let users = try String(contentsOfFile: "\(root)/etc/sysusers.d/roundclock.conf", encoding: .utf8)
        #expect(users.contains("m roundclock i2c\nm roundclock gpio\nm roundclock audio\n"))
        // ALSA's core at boot, so that DeviceAllow=char-alsa finds its group when the unit starts.
        let modules = try String(contentsOfFile: "\(root)/etc/modules-load.d/roundclock.conf", encoding: .utf8)
        #expect(modules.split(separator: "\n").filter { !$0.hasPrefix("#") } == ["snd"])
        // The control socket's group, which the unit's SupplementaryGroups= names.
        #expect(users.contains("\ng roundclock-remote - -\n"))

        // The installed config is valid as installed.
        let check = try await CLIRun.run(["check-config", "\(root)/etc/roundclock/config.toml"])
        #expect(check.status == 0, "\(check.stderr)")

        // A second install keeps an edited config.
        try "program = \"tabata\"\n".write(toFile: "\(root)/etc/roundclock/config.toml", atomically: true, encoding: .utf8)
        let again = try await runScript("scripts/install.sh", ["--binary", binary], environment: ["DESTDIR": root])
        #expect(again.status == 0 && again.stdout.contains("keeping the existing"))
        #expect(try String(contentsOfFile: "\(root)/etc/roundclock/config.toml", encoding: .utf8) == "program = \"tabata\"\n")

        // systemd-sysusers, where present, accepts the file and creates user and groups.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-sysusers") {
            for file in ["passwd", "group", "shadow", "gshadow"] {
                _ = FileManager.default.createFile(atPath: "\(root)/etc/\(file)", contents: Data())
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-sysusers")
            process.arguments = ["--root=\(root)", "\(root)/etc/sysusers.d/roundclock.conf"]
            try process.run()
            await process.exited()
            #expect(process.terminationStatus == 0)
            let groups = try String(contentsOfFile: "\(root)/etc/group", encoding: .utf8)
            #expect(groups.contains(":roundclock\n") && groups.hasPrefix("i2c:x:"))
            #expect(groups.split(separator: "\n").contains { $0.hasPrefix("audio:x:") && $0.hasSuffix(":roundclock") })
        }
    }

    @Test func prefixUsrAndDryRun() async throws {
        let root = temporaryFile("destdir-usr")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dry = try await runScript("scripts/install.sh", ["--dry-run", "--prefix", "/usr", "--binary", CLIRun.binary.path], environment: ["DESTDIR": root])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("+ install -D -m 0755 \(CLIRun.binary.path) \(root)/usr/bin/roundclock\n"))
        #expect(dry.stdout.contains("\(root)/usr/lib/sysusers.d/roundclock.conf"))
        #expect(!FileManager.default.fileExists(atPath: root), "a dry run creates nothing")
        let real = try await runScript("scripts/install.sh", ["--prefix=/usr", "--binary", CLIRun.binary.path], environment: ["DESTDIR": root])
        #expect(real.status == 0)
        let unit = try String(contentsOfFile: "\(root)/etc/systemd/system/roundclock.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=/usr/bin/roundclock run") && unit.contains("file:///usr/share/doc/roundclock/README.md"))
    }

    @Test func refusesMissingBinaryAndUnknownOptions() async throws {
        let missing = try await runScript("scripts/install.sh", ["--binary", "/nonexistent/roundclock"], environment: ["DESTDIR": temporaryFile("x")])
        #expect(missing.status == 66 && missing.stderr.contains("no executable binary at /nonexistent/roundclock"))
        let unknown = try await runScript("scripts/install.sh", ["--frobnicate"], environment: ["DESTDIR": temporaryFile("x")])
        #expect(unknown.status == 64)
    }

    @Test func unitExposureAndVerify() async throws {
        let run = try await runScript("Tests/systemd/check-unit.sh", [])
        if run.status == 77 { return } // systemd-analyze not installed: nothing to check here
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("ok: exposure"))
        let strict = try await runScript("Tests/systemd/check-unit.sh", [], environment: ["MAX_EXPOSURE": "0.1"])
        #expect(strict.status == 1 && strict.stdout.contains("is above 0.1"), "the check can fail")
    }
}
