import ArgumentParser
import ClockMQTT
#if canImport(Glibc)
import Glibc
#endif
import Logging
import MosquittoClient
import Platform
import RemoteGateway
import RoundClockConfig

/// `[mqtt]` made into a client (docs/mqtt-home-assistant.md): the password file read,
/// the hostname defaults filled in. A file that cannot be used exits 78 (EX_CONFIG) with one line.
enum MQTTOptions {
    /// Longest password file read; MQTT passwords are at most 65,535 bytes (MQTT 3.1.1 section 3.1.3.5).
    static let passwordFileLimit = 65_536

    static func setup(_ config: Config, version: String, logger: Logger) throws -> MQTTSetup? {
        guard let mqtt = config.mqtt else { return nil }
        let host = hostname()
        let topics = ClockTopics(prefix: mqtt.topicPrefix(hostname: host))
        var password: String?
        if let file = mqtt.passwordFile {
            do {
                let bytes = try SmallFiles.read(file, limit: passwordFileLimit)
                // The first line; a trailing newline (echo, editors) is not part of it.
                password = String(decoding: bytes.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
            } catch {
                throw fail("\(config.file): [mqtt] password_file: \(error)")
            }
        }
        let connection = MQTTConnection(host: mqtt.host, port: mqtt.effectivePort, clientID: mqtt.clientID(hostname: host),
                                        keepalive: mqtt.keepalive, username: mqtt.username, password: password,
                                        caFile: mqtt.caFile, will: ClockMQTT.will(topics))
        do {
            let client = try MQTTClient(connection, logger: logger)
            let discovery = HomeAssistantDiscovery(topics: topics, discoveryPrefix: mqtt.discoveryPrefix,
                                                   programs: config.catalog.map(\.name), version: version)
            return MQTTSetup(client: client, topics: topics, discovery: discovery)
        } catch {
            throw fail("\(config.file): [mqtt] \(error)")
        }
    }

    private static func fail(_ line: String) -> ExitCode {
        StandardStream.error.write("error: \(line)\n")
        return ExitCode(ConfigError.exitCode)
    }

    /// gethostname(2), the default topic prefix's and client id's last part.
    static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
