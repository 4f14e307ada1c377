import Foundation
import Logging
import MosquittoClient
import RemoteGateway
import Testing
import TestSupport

/// The clock's MQTT topics, Home Assistant discovery payloads and the `cmd` parser.
@Suite struct MQTTPayloadTests {
    static let topics = ClockTopics(prefix: "roundclock/gym-pi")
    static let discovery = HomeAssistantDiscovery(topics: topics, discoveryPrefix: "homeassistant",
                                                  programs: ["boxing", "mma", "sparring"], version: "0.1.0")

    static func object(_ message: MQTTMessage) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
    }

    @Test func topicsSitBelowThePrefix() {
        #expect(Self.topics.state == "roundclock/gym-pi/state")
        #expect(Self.topics.status == "roundclock/gym-pi/status")
        #expect(Self.topics.command == "roundclock/gym-pi/cmd")
        #expect(ClockMQTT.will(Self.topics) == MQTTMessage(topic: "roundclock/gym-pi/status", text: "offline", retain: true))
    }

    @Test func discoveryTopicsFollowHomeAssistantsConvention() {
        #expect(Self.discovery.nodeID == "roundclock_gym-pi")
        #expect(Self.discovery.messages.map(\.topic) == [
            "homeassistant/button/roundclock_gym-pi/start/config", "homeassistant/button/roundclock_gym-pi/stop/config",
            "homeassistant/button/roundclock_gym-pi/reset/config", "homeassistant/button/roundclock_gym-pi/next_program/config",
            "homeassistant/select/roundclock_gym-pi/program/config",
            "homeassistant/sensor/roundclock_gym-pi/remaining/config", "homeassistant/sensor/roundclock_gym-pi/phase/config",
            "homeassistant/sensor/roundclock_gym-pi/round/config", "homeassistant/sensor/roundclock_gym-pi/state/config",
        ])
        #expect(Self.discovery.messages.allSatisfy { $0.retain })
        #expect(HomeAssistantDiscovery(topics: ClockTopics(prefix: "gym/ring 1/ü"), discoveryPrefix: "ha", programs: [], version: "1").nodeID
                == "gym_ring_1__")
    }

    @Test func discoveryPayloadsCarryDeviceOriginAvailabilityAndTheirRequiredKeys() throws {
        var uniqueIDs: Set<String> = []
        for message in Self.discovery.messages {
            let config = try Self.object(message)
            let component = message.topic.split(separator: "/")[1]
            #expect(config["availability_topic"] as? String == "roundclock/gym-pi/status")
            let device = try #require(config["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["roundclock_gym-pi"] && device["name"] as? String == "RoundClock gym-pi")
            #expect(device["manufacturer"] as? String == "RoundClock" && device["sw_version"] as? String == "0.1.0")
            #expect((config["origin"] as? [String: Any])?["name"] as? String == "roundclock-gateway")
            let uniqueID = try #require(config["unique_id"] as? String)
            #expect(uniqueIDs.insert(uniqueID).inserted, "\(uniqueID) once")
            switch component {
            case "button":
                #expect(config["command_topic"] as? String == "roundclock/gym-pi/cmd")
                #expect((config["payload_press"] as? String).map { $0.hasPrefix(#"{"command": ""#) } == true)
            case "select":
                #expect(config["options"] as? [String] == ["boxing", "mma", "sparring"])
                #expect(config["command_template"] as? String == #"{"command": "program", "program": {{ value | tojson }}}"#)
                #expect(config["value_template"] as? String == "{{ value_json.program }}")
            default:
                #expect(component == "sensor" && config["state_topic"] as? String == "roundclock/gym-pi/state")
            }
        }
        #expect(uniqueIDs.count == 9)
        let presses = try Self.discovery.messages.filter { $0.topic.contains("/button/") }.map { try Self.object($0)["payload_press"] as? String }
        #expect(presses == [#"{"command": "start"}"#, #"{"command": "stop"}"#, #"{"command": "reset"}"#, #"{"command": "mode"}"#])
        // Each button's payload is a command the cmd topic takes.
        for press in presses.compactMap({ $0 }) { #expect(throws: Never.self) { try MQTTCommand.line(Array(press.utf8)) } }
    }

    @Test(arguments: [
        (#"{"command": "start"}"#, #"{"command": "start"}"#),
        (#"{ "program" : "tabata", "command": "program" }"#, #"{"command": "program", "program": "tabata"}"#),
        (#"{"command":"hold-stop"}"#, #"{"command": "hold-stop"}"#),
        // Home Assistant's live-edit buttons.
        (#"{"command": "adjust", "seconds": 10}"#, #"{"command": "adjust", "seconds": 10}"#),
        (#"{"command": "adjust", "seconds": -10}"#, #"{"command": "adjust", "seconds": -10}"#),
        (#"{"command": "back"}"#, #"{"command": "back"}"#),
    ])
    func commandsAreReencodedAsTheSocketsLine(_ payload: String, _ line: String) throws {
        #expect(try MQTTCommand.line(Array(payload.utf8)) == line)
    }

    @Test func subscribeAdoptHugeAndBadUTF8AreRefused() {
        let refused: [[UInt8]] = [Array(#"{"command": "subscribe"}"#.utf8), Array(#"{"command": "version"}"#.utf8),
                                  Array(#"{"command": "adopt", "token": 1}"#.utf8),
                                  Array(repeating: 0x20, count: 1025), [0xFF, 0xFE] + Array(#"{"command": "start"}"#.utf8), []]
        for payload in refused {
            #expect(throws: MQTTCommand.Refusal.self) { try MQTTCommand.line(payload) }
        }
    }

    /// Random byte strings built from command fragments, bad UTF-8 and control bytes: each is
    /// either a command the socket accepts (re-encoded as its line) or refused with one line.
    @Test func generatedPayloadsAreCommandsOrRefusedInOneLine() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("MQTTPayloadTests cmd corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let pieces: [[UInt8]] = [#"{"command": "#, #""start""#, #""program""#, #", "program": "#, #""boxing""#, "}", "{", "[", "5",
                                 #""adopt""#, #""subscribe""#, "\n", "\"", "\\", "null"].map { Array($0.utf8) } + [[0xFF], [0xC3], [0x00], [0x1B]]
        for _ in 0..<3000 {
            let payload = (0..<Int(random.next() % 6)).flatMap { _ in random.pick(pieces) }
            do {
                let line = try MQTTCommand.line(payload)
                #expect(line.hasPrefix(#"{"command": ""#) && !line.contains("\n"), "seed \(seed): \(payload)")
                #expect(!line.contains("adopt") && !line.contains("subscribe"), "seed \(seed)")
            } catch {
                #expect(!error.reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "seed \(seed): one line: \(error.reason)")
            }
        }
    }

    @Test func errorsNameTheBrokerAndLibmosquittosWords() {
        let connection = MQTTConnection(host: "::1", port: 8883, clientID: "ring1")
        #expect(connection.broker == "[::1]:8883")
        let error = MQTTError(broker: connection.broker, operation: "connect", reason: "Connection refused")
        #expect(error.description == "MQTT broker [::1]:8883: connect: Connection refused")
    }

    @Test func anUnreadableCAFileIsRefusedAtOnce() {
        let connection = MQTTConnection(host: "localhost", port: 8883, clientID: "t", caFile: "/nonexistent/ca.pem")
        do {
            _ = try MQTTClient(connection, logger: Logger(label: "test"))
            Issue.record("accepted a missing CA file")
        } catch {
            #expect(error.description.hasPrefix("MQTT broker localhost:8883: TLS with ca_file /nonexistent/ca.pem: "), "\(error)")
        }
    }
}
