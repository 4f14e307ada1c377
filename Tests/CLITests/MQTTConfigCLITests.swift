import Foundation
import Testing

/// `[mqtt]` and `[sync]` in the clock's own config reader: the clock accepts a
/// file that has them (only the gateway uses them) and refuses bad ones like every section.
@Suite struct MQTTConfigCLITests {
    @Test func checkConfigAcceptsAndSummarizesMQTTAndSync() async throws {
        let path = temporaryFile("mqtt.toml")
        try "[mqtt]\nhost = \"broker.gym.lan\"\nca_file = \"ca.pem\"\ntopic_prefix = \"gym/ring1\"\n[sync]\ngroup = \"ring1\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await CLIRun.run(["check-config", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\nmqtt (roundclock-gateway): broker broker.gym.lan:8883 over TLS, topics gym/ring1/…, discovery homeassistant/…\n"), "\(run.stdout)")
        #expect(run.stdout.contains("\nsync group: ring1\nsettings: \(path); each from:\n"), "\(run.stdout)")
        #expect(run.stdout.contains("\n  sync.group = \"ring1\"              <- \(path)\n"), "\(run.stdout)")
    }

    @Test func badMQTTAndSyncTablesExit78OnOneLine() async throws {
        let corpus = CheckConfigTests.repository.appendingPathComponent("Tests/RoundClockConfigTests/BadConfigs")
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasPrefix("mqtt-") || $0.hasPrefix("sync-") }
        #expect(files.count >= 20)
        for file in files {
            let run = try await CLIRun.run(["check-config", corpus.appendingPathComponent(file).path])
            #expect(run.status == 78, "\(file)")
            let prefix = file.hasPrefix("mqtt-") ? ": mqtt" : ": sync"
            #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains(prefix), "\(file): \(run.stderr)")
        }
    }
}
