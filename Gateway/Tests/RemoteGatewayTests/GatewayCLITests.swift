import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RoundClockConfig
import Testing

/// The built `roundclock-gateway`: the PIN it makes and keeps, its one-line errors and
/// exit statuses (docs/remote.md, docs/command-line.md), the unit and the Avahi file.
@Suite struct GatewayCLITests {
    static let repository = EndToEndTests.gateway.deletingLastPathComponent()

    func gateway(_ arguments: [String]) async throws -> ScriptRun {
        try await ScriptRun.run(ScriptRun.gatewayBinary.path, arguments)
    }

    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "rc-gateway-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func showPinMakesTenDigitsOnceKeptMode0600() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config.toml"
        try "".write(toFile: config, atomically: true, encoding: .utf8)
        let first = try await gateway(["--config", config, "--state-dir", dir + "/state", "--show-pin"])
        #expect(first.status == 0, "\(first.stderr)")
        let pin = first.stdout.trimmingCharacters(in: .newlines)
        #expect(pin.count == 10 && pin.allSatisfy(\.isASCII) && pin.allSatisfy(\.isNumber), "\(first.stdout)")
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/state/pin")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOfFile: dir + "/state/pin", encoding: .utf8) == pin + "\n")
        let second = try await gateway(["--config", config, "--state-dir", dir + "/state", "--show-pin"])
        #expect(second.stdout == first.stdout, "the same PIN on the next start")
    }

    @Test func configuredPinWins() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "[remote]\npin = \"0042\"\n".write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        let run = try await gateway(["--config", dir + "/config.toml", "--state-dir", dir + "/state", "--show-pin"])
        #expect(run.status == 0 && run.stdout == "0042\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/state/pin"), "nothing generated")
    }

    /// The clock's sound files are the clock's: one the gateway's user cannot read (here it is
    /// missing) does not stop the gateway.
    @Test func theClocksSoundFilesAreNotTheGatewaysConcern() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "[remote]\npin = \"0042\"\n[sound.start]\nsound = \"/var/lib/roundclock/gong.wav\"\n"
            .write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        let run = try await gateway(["--config", dir + "/config.toml", "--state-dir", dir + "/state", "--show-pin"])
        #expect(run.status == 0 && run.stdout == "0042\n", "\(run.stderr)")
    }

    @Test func damagedPinFileIsOneLineNotACrash() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "".write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        try "12ab\n".write(toFile: dir + "/pin", atomically: true, encoding: .utf8)
        let run = try await gateway(["--config", dir + "/config.toml", "--state-dir", dir, "--show-pin"])
        #expect(run.status == 73)
        #expect(run.stderr == "error: \(dir)/pin: \"12ab\" is not a usable PIN; use 4 to 12 digits 0-9; delete it and a new PIN is made\n")
    }

    @Test(arguments: [
        ("[remote]\npin = \"12\"\n", "remote.pin: \"12\" is not a usable PIN; use 4 to 12 digits 0-9"),
        ("[remote]\nlisten = \"0.0.0.0\"\n", "remote.listen: \"0.0.0.0\" has no port"),
        ("[remote]\ntls_cert = \"/nonexistent/cert.pem\"\ntls_key = \"/nonexistent/key.pem\"\npin = \"1234\"\n", "[remote] tls_cert /nonexistent/cert.pem, tls_key /nonexistent/key.pem: "),
    ])
    func badConfigExits78WithOneLine(_ text: String, _ fragment: String) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try text.write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        let run = try await gateway(["--config", dir + "/config.toml", "--state-dir", dir, "--listen", "127.0.0.1:0", "--control", dir + "/none.sock"])
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.stderr.contains(fragment) && run.stderr.hasSuffix("\n") && run.stderr.dropLast().allSatisfy { $0 != "\n" }, "\(run.stderr)")
    }

    @Test(arguments: ["localhost", "127.0.0.1:99999", "[::1]", "a b:80", "127.0.0.1:08"])
    func badListenExits64WithOneLine(_ listen: String) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "".write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        let run = try await gateway(["--config", dir + "/config.toml", "--listen", listen, "--show-pin", "--state-dir", dir])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("error: --listen ") && run.stderr.filter { $0 == "\n" }.count == 1, "\(run.stderr)")
    }

    @Test func unitIsHardenedWithinOneAndAHalfCapsConnectionsAndVerifies() async throws {
        let script = Self.repository.appendingPathComponent("Tests/systemd/check-unit.sh").path
        let unit = Self.repository.appendingPathComponent("Gateway/systemd/roundclock-gateway.service").path
        let run = try await ScriptRun.run("/bin/sh", [script, unit])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("ok: exposure") && run.stdout.contains("(at most 1.5)"))
        #expect(run.stdout.contains("ok: connection caps 256 in all, 16 per address; LimitNOFILE=1024"))
        #expect(run.stdout.contains("ok: systemd-analyze verify is clean") && run.stdout.contains("ok: required settings present"))
        let strict = try await ScriptRun.run("/usr/bin/env", ["MAX_EXPOSURE=0.5", "/bin/sh", script, unit])
        #expect(strict.status == 1 && strict.stdout.contains("FAIL: exposure"), "the check can fail")
    }

    @Test func avahiAdvertisesTheDefaultPortAsHTTP() throws {
        let path = Self.repository.appendingPathComponent("Gateway/avahi/roundclock-gateway.service").path
        let data = try #require(FileManager.default.contents(atPath: path))
        let parser = XMLParser(data: data)
        #expect(parser.parse(), "well-formed XML")
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("<type>_http._tcp</type>"))
        #expect(text.contains("<port>\(RemoteSettings().listen.port)</port>"), "the port [remote] listen defaults to")
        #expect(text.contains("<!DOCTYPE service-group SYSTEM \"avahi-service.dtd\">"))
    }
}

extension GatewayCLITests {
    /// `[mqtt]` files the gateway reads at start: one line naming the config and the file, exit 78.
    @Test func unreadableMQTTPasswordOrCAFileIsOneLineExit78() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config.toml"
        try "[mqtt]\nusername = \"clock\"\npassword_file = \"nope.pass\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let password = try await gateway(["--config", config, "--state-dir", dir + "/state", "--listen", "127.0.0.1:0"])
        #expect(password.status == 78)
        #expect(password.stderr.hasPrefix("error: \(config): [mqtt] password_file: open \(dir)/nope.pass: No such file or directory") && password.stderr.split(separator: "\n").count == 1,
                "\(password.stderr)")
        try "[mqtt]\nca_file = \"/nonexistent/ca.pem\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let ca = try await gateway(["--config", config, "--state-dir", dir + "/state", "--listen", "127.0.0.1:0"])
        #expect(ca.status == 78)
        #expect(ca.stderr.hasPrefix("error: \(config): [mqtt] MQTT broker localhost:8883: TLS with ca_file /nonexistent/ca.pem: ")
                && ca.stderr.split(separator: "\n").count == 1, "\(ca.stderr)")
    }
}
