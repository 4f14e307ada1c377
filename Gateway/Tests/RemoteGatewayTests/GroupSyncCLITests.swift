import Foundation
import Testing

/// `[sync] group` in the built `roundclock-gateway` (docs/sync.md): it needs
/// `[mqtt]`, and the MQTT client id (the member id) must be topic-safe; else one line, 78.
@Suite struct GroupSyncCLITests {
    func run(config: String) async throws -> ScriptRun {
        let dir = NSTemporaryDirectory() + "rc-gateway-sync-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try config.write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        let run = try await ScriptRun.run(ScriptRun.gatewayBinary.path, ["--config", dir + "/config.toml", "--state-dir", dir + "/state",
                                                                         "--listen", "127.0.0.1:0", "--control", dir + "/none.sock"])
        return ScriptRun(status: run.status, stdout: run.stdout, stderr: run.stderr.replacingOccurrences(of: dir, with: "DIR"))
    }

    @Test func syncWithoutMQTTIsOneLineAndExit78() async throws {
        let run = try await run(config: "[remote]\npin = \"1234\"\n[sync]\ngroup = \"ring1\"\n")
        #expect(run.status == 78)
        #expect(run.stderr == "error: DIR/config.toml: line 4: sync.group: a group shares its session through an MQTT broker; add an [mqtt] table\n")
    }

    @Test func aClientIDThatIsNoMemberIDIsOneLineAndExit78() async throws {
        let run = try await run(config: "[remote]\npin = \"1234\"\n[mqtt]\nhost = \"127.0.0.1\"\nclient_id = \"ring1:south\"\n[sync]\ngroup = \"ring1\"\n")
        #expect(run.status == 78)
        // The config reader refuses it (as `check-config` does), before the gateway's own check.
        #expect(run.stderr == "error: DIR/config.toml: line 7: sync.group: [mqtt] client_id \"ring1:south\" is this clock's member id in the group; "
                + "use only ASCII letters, digits, '-', '_' and '.', e.g. \"ring1-north\"\n")
    }
}
