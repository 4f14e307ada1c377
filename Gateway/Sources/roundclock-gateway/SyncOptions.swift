import ArgumentParser
import CommandLineSupport
import GroupBridges
import Platform
import RemoteGateway
import RoundClockConfig

/// `[sync] group` checked against `[mqtt]` (docs/sync.md): the group's session
/// travels through the broker, and the MQTT client id is the member id in the group's
/// messages. A mismatch exits 78 (EX_CONFIG) with one line.
enum SyncOptions {
    static func group(_ config: Config, mqtt: MQTTSetup?) throws -> String? {
        guard let sync = config.sync else { return nil }
        // The config reader already refuses [sync] without [mqtt]; kept for a caller that did not.
        guard let mqtt else {
            throw fail("\(config.file): [sync] group = \(sync.group.debugDescription) needs an [mqtt] table: the group shares its session through the broker")
        }
        if let problem = GroupSessionBridge.memberProblem(mqtt.client.connection.clientID) {
            throw fail("\(config.file): [mqtt] client_id: \(problem)")
        }
        return sync.group
    }

    private static func fail(_ line: String) -> ExitCode {
        StandardStream.error.write("error: \(line)\n")
        return ExitCode(ConfigError.exitCode)
    }
}
