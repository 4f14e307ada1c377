import JSON
import MosquittoClient

/// The clock's own topics below `[mqtt] topic_prefix` (docs/mqtt-home-assistant.md).
public struct ClockTopics: Sendable, Hashable {
    public var prefix: String
    public init(prefix: String) { self.prefix = prefix }
    /// Retained: the control socket's state line (JSON) on every display change.
    public var state: String { prefix + "/state" }
    /// Retained: `online` / `offline` (also the last will).
    public var status: String { prefix + "/status" }
    /// Commands in: the control socket's command objects.
    public var command: String { prefix + "/cmd" }

    public static let online = "online", offline = "offline"
}

/// Home Assistant MQTT discovery (home-assistant.io/integrations/mqtt, "Discovery messages"):
/// one retained config message per entity on `<discovery_prefix>/<component>/<node_id>/<object_id>/config`,
/// each with the shared `device` (so the clock is one device), `origin`, `availability_topic`
/// and a `unique_id`. Required keys per component (integrations/button.mqtt, select.mqtt,
/// sensor.mqtt): button `command_topic`; select `command_topic` and `options`; sensor
/// `state_topic`. The configs are republished on every connect and never removed by the
/// gateway: a stopped gateway leaves `status` `offline`, which Home Assistant shows as
/// unavailable (an empty retained config would delete the entities and their history).
public struct HomeAssistantDiscovery: Sendable {
    public var topics: ClockTopics
    public var discoveryPrefix: String
    /// Program names for the select: the presets MODE cycles through, then `[programs]`.
    public var programs: [String]
    public var version: String

    public init(topics: ClockTopics, discoveryPrefix: String, programs: [String], version: String) {
        self.topics = topics
        self.discoveryPrefix = discoveryPrefix
        self.programs = programs
        self.version = version
    }

    /// `<node_id>`: the topic prefix in the characters a node id may hold, `[a-zA-Z0-9_-]`.
    public var nodeID: String {
        topics.prefix.unicodeScalars.map { s in
            (s.value >= 0x30 && s.value <= 0x39) || (s.value >= 0x41 && s.value <= 0x5A) || (s.value >= 0x61 && s.value <= 0x7A) || s == "-" ? String(s) : "_"
        }.joined()
    }

    /// The entities: (component, object id, name, its own keys).
    var entities: [(component: String, object: String, name: String, keys: [JSONMember])] {
        func button(_ object: String, _ name: String, _ command: String, _ icon: String) -> (String, String, String, [JSONMember]) {
            ("button", object, name, [JSONMember("command_topic", .string(topics.command)),
                                      JSONMember("payload_press", .string(#"{"command": "\#(command)"}"#)),
                                      JSONMember("icon", .string(icon))])
        }
        func sensor(_ object: String, _ name: String, _ template: String, _ icon: String) -> (String, String, String, [JSONMember]) {
            ("sensor", object, name, [JSONMember("state_topic", .string(topics.state)),
                                      JSONMember("value_template", .string(template)),
                                      JSONMember("icon", .string(icon))])
        }
        return [
            button("start", "Start", "start", "mdi:play"),
            button("stop", "Stop", "stop", "mdi:pause"),
            button("reset", "Reset", "reset", "mdi:restart"),
            button("next_program", "Next program", "mode", "mdi:skip-next"),
            ("select", "program", "Program", [
                JSONMember("command_topic", .string(topics.command)),
                JSONMember("command_template", .string(#"{"command": "program", "program": {{ value | tojson }}}"#)),
                JSONMember("state_topic", .string(topics.state)),
                JSONMember("value_template", .string("{{ value_json.program }}")),
                JSONMember("options", .array(programs.map { .string($0) })),
                JSONMember("icon", .string("mdi:format-list-bulleted")),
            ]),
            sensor("remaining", "Remaining time", "{{ value_json.panels.time | default('') | trim }}", "mdi:timer-outline"),
            sensor("phase", "Phase", "{{ value_json.phase }}", "mdi:boxing-glove"),
            sensor("round", "Round", "{{ value_json.round }}", "mdi:counter"),
            sensor("state", "State", "{{ value_json.state }}", "mdi:state-machine"),
        ]
    }

    /// The retained config messages, in a fixed order.
    public var messages: [MQTTMessage] {
        let node = nodeID
        let device = JSONValue.object([
            JSONMember("identifiers", .array([.string(node)])),
            JSONMember("name", .string("RoundClock \(topics.prefix.split(separator: "/").last.map(String.init) ?? node)")),
            JSONMember("manufacturer", .string("RoundClock")),
            JSONMember("model", .string("RoundClock gym round clock")),
            JSONMember("sw_version", .string(version)),
        ])
        let origin = JSONValue.object([JSONMember("name", .string("roundclock-gateway")), JSONMember("sw_version", .string(version))])
        return entities.map { entity in
            let members = [
                JSONMember("name", .string(entity.name)),
                JSONMember("unique_id", .string("\(node)_\(entity.object)")),
                JSONMember("availability_topic", .string(topics.status)),
                JSONMember("payload_available", .string(ClockTopics.online)),
                JSONMember("payload_not_available", .string(ClockTopics.offline)),
                JSONMember("qos", .int(1)),
            ] + entity.keys + [JSONMember("device", device), JSONMember("origin", origin)]
            return MQTTMessage(topic: "\(discoveryPrefix)/\(entity.component)/\(node)/\(entity.object)/config",
                               text: JSONValue.object(members).encoded)
        }
    }
}
