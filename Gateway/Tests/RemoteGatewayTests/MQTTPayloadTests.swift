@testable import ClockMQTT
@testable import ConnectionAdmission
import ControlProtocol
import Foundation
@testable import GatewayAccess
import Logging
import MosquittoClient
import RemoteGateway
import TestSupport
import Testing

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

    @Test func discoveryTopicsFollowHomeAssistantsConvention() throws {
        #expect(Self.discovery.nodeID == "roundclock_gym-pi")
        #expect(Self.discovery.messages().map(\.topic) == [
            "button/start", "button/stop", "button/reset", "button/next_program", "button/add_10_s", "button/subtract_10_s",
            "button/back", "select/program", "sensor/phase_ends_at", "sensor/remaining", "sensor/phase", "sensor/round", "sensor/state",
        ].map { "homeassistant/" + $0.replacingOccurrences(of: "/", with: "/roundclock_gym-pi/") + "/config" })
        #expect(Self.discovery.messages().allSatisfy { $0.retain })
        // Home Assistant makes entity ids from the names: each name's slug is its own.
        let names = Self.discovery.messages().compactMap { (try? Self.object($0))?["name"] as? String }
        #expect(names == ["Start", "Stop", "Reset", "Next program", "Plus 10 s", "Minus 10 s", "Back", "Program", "Phase ends", "Remaining",
                          "Phase", "Round", "State"])
        #expect(HomeAssistantDiscovery(topics: ClockTopics(prefix: "gym/ring 1/ü"), discoveryPrefix: "ha", programs: [], version: "1").nodeID
                == "gym_ring_1__")
    }

    /// Every entity's own keys, exactly: what Home Assistant reads to make the entity.
    static var expectedKeys: [String: [String: Any]] { [
        "start": ["command_topic": "roundclock/gym-pi/cmd", "payload_press": #"{"command": "start"}"#],
        "stop": ["command_topic": "roundclock/gym-pi/cmd", "payload_press": #"{"command": "stop"}"#],
        "reset": ["command_topic": "roundclock/gym-pi/cmd", "payload_press": #"{"command": "reset"}"#],
        "next_program": ["command_topic": "roundclock/gym-pi/cmd", "payload_press": #"{"command": "mode"}"#],
        "add_10_s": ["command_topic": "roundclock/gym-pi/cmd", "payload_press": #"{"command": "adjust", "seconds": 10}"#],
        "subtract_10_s": ["command_topic": "roundclock/gym-pi/cmd", "payload_press": #"{"command": "adjust", "seconds": -10}"#],
        "back": ["command_topic": "roundclock/gym-pi/cmd", "payload_press": #"{"command": "back"}"#],
        "program": ["command_topic": "roundclock/gym-pi/cmd", "state_topic": "roundclock/gym-pi/state",
                    "command_template": #"{"command": "program", "program": {{ value | tojson }}}"#,
                    "value_template": "{{ value_json.program }}", "options": ["boxing", "mma", "sparring"]],
        "phase_ends_at": ["state_topic": "roundclock/gym-pi/state", "value_template": "{{ value_json.phase_ends_at }}",
                          "device_class": "timestamp"],
        "remaining": ["state_topic": "roundclock/gym-pi/state", "value_template": "{{ value_json.remaining }}", "device_class": "duration",
                      "unit_of_measurement": "s", "state_class": "measurement", "enabled_by_default": false],
        "phase": ["state_topic": "roundclock/gym-pi/state", "device_class": "enum", "options": ["prep", "work", "rest", "clock"],
                  "value_template": "{{ value_json.phase if value_json.phase in ['prep', 'work', 'rest', 'clock'] else None }}"],
        "round": ["state_topic": "roundclock/gym-pi/state", "value_template": "{{ value_json.round }}", "state_class": "measurement"],
        "state": ["state_topic": "roundclock/gym-pi/state", "device_class": "enum",
                  "options": ["ready", "running", "paused", "finished", "clock"],
                  "value_template": "{{ value_json.state if value_json.state in ['ready', 'running', 'paused', 'finished', 'clock'] else None }}"],
    ] }
    static let commonKeys: Set = ["name", "unique_id", "availability_topic", "payload_available", "payload_not_available", "qos", "icon",
                                  "device", "origin"]

    @Test func everyEntitysConfigIsExactlyWhatHomeAssistantNeeds() throws {
        var uniqueIDs: Set<String> = []
        for message in Self.discovery.messages() {
            let config = try Self.object(message)
            let object = String(message.topic.split(separator: "/")[3])
            let expected = try #require(Self.expectedKeys[object], "\(object) expected")
            #expect(Set(config.keys) == Self.commonKeys.union(expected.keys), "\(object): \(config.keys.sorted())")
            for (key, value) in expected {
                #expect((config[key] as? NSObject)?.isEqual(value) == true, "\(object).\(key): \(String(describing: config[key]))")
            }
            #expect(config["enabled_by_default"] == nil || object == "remaining", "only remaining starts disabled")
            #expect(config["availability_topic"] as? String == "roundclock/gym-pi/status")
            #expect(config["payload_available"] as? String == "online" && config["payload_not_available"] as? String == "offline")
            let device = try #require(config["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["roundclock_gym-pi"] && device["name"] as? String == "RoundClock gym-pi")
            #expect(device["manufacturer"] as? String == "RoundClock" && device["sw_version"] as? String == "0.1.0")
            #expect((config["origin"] as? [String: Any])?["name"] as? String == "roundclock-gateway")
            let uniqueID = try #require(config["unique_id"] as? String)
            #expect(uniqueID == "roundclock_gym-pi_\(object)")
            #expect(uniqueIDs.insert(uniqueID).inserted, "\(uniqueID) once")
        }
        #expect(uniqueIDs.count == Self.expectedKeys.count)
        // Every button sends a command the cmd topic takes.
        let buttons = Self.expectedKeys.filter { $0.value["payload_press"] != nil }.map(\.key)
        #expect(buttons.count == 7)
        for object in buttons {
            let press = try #require(Self.expectedKeys[object]?["payload_press"] as? String)
            #expect(throws: Never.self) { try MQTTCommand.line(Array(press.utf8)) }
        }
    }

    @Test func theSelectOffersTheRunningProgramWhenItIsNotListed() throws {
        let listed = try Self.object(Self.discovery.selectMessage(running: "mma"))
        #expect(listed["options"] as? [String] == ["boxing", "mma", "sparring"])
        let line = "10 x 0:45/0:15, prep 0:10"
        let extended = try Self.object(Self.discovery.selectMessage(running: line))
        #expect(extended["options"] as? [String] == ["boxing", "mma", "sparring", line])
        #expect(Self.discovery.messages(running: line).filter { $0.topic.contains("/select/") } == [Self.discovery.selectMessage(running: line)])
    }

    @Test func theStatePayloadIsOfTheProgramTheClockDefinesNotTheGatewaysOfTheSameName() throws {
        let anchor = SessionReportTests.anchor
        var reports = SavedProgramX.gatewayReports()
        _ = reports.report(after: SavedProgramX.running(anchor: anchor, atSecond: 0), realtimeNow: anchor)
        // STOP 8.5 s in: round 1's JUMP (0:05 to 0:12) has 3.5 s left; the gateway's `x` would be in its 0:20 work.
        let paused = ControlState(state: "paused", phase: "work", round: 1, rounds: 2, program: "x", brightness: 15, panels: [],
                                  session: SessionShare(program: "x", run: .paused, elapsedBeforeNanoseconds: 8_500_000_000))
        let made = reports.report(after: paused.line, realtimeNow: anchor + 20 * SessionReportTests.second)
        let report = try #require(made)
        let payload = try Self.object(MQTTMessage(topic: Self.topics.state, text: report.line))
        #expect(payload["remaining"] as? Int == 4, "\(report.line)")
        #expect(payload["program"] as? String == "x" && payload["phase_ends_at"] is NSNull)
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
                                  Array(#"{"command": "show-pin", "pin": "0000", "seconds": 600}"#.utf8),
                                  Array(#"{"command": "settings-reset"}"#.utf8),
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
