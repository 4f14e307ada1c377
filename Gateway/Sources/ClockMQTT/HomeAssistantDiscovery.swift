import JSON
import MosquittoClient

/// The clock's own topics below `[mqtt] topic_prefix` (docs/mqtt-home-assistant.md).
public struct ClockTopics: Sendable, Hashable {
    public var prefix: String
    public init(prefix: String) { self.prefix = prefix }
    /// Retained: the session's report (`SessionReport`), published when it changes.
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

    /// The values of the `state` and `phase` enum sensors (docs/control-protocol.md "State lines").
    public static let states = ["ready", "running", "paused", "finished", "clock"]
    public static let phases = ["prep", "work", "rest", "clock"]

    /// The select's options: `programs`, then `running` when it is not among them (a DSL line,
    /// `emom:12`), so Home Assistant never sees a state outside its options.
    public func options(including running: String?) -> [String] {
        guard let running, !programs.contains(running) else { return programs }
        return programs + [running]
    }

    /// The entities: (component, object id, name, its own keys).
    func entities(running: String?) -> [(component: String, object: String, name: String, keys: [JSONMember])] {
        func button(_ object: String, _ name: String, _ press: String, _ icon: String) -> (String, String, String, [JSONMember]) {
            ("button", object, name, [JSONMember("command_topic", .string(topics.command)),
                                      JSONMember("payload_press", .string(press)),
                                      JSONMember("icon", .string(icon))])
        }
        func command(_ word: String) -> String { #"{"command": "\#(word)"}"# }
        func sensor(_ object: String, _ name: String, _ template: String, _ icon: String, _ more: [JSONMember]) -> (String, String, String, [JSONMember]) {
            ("sensor", object, name, [JSONMember("state_topic", .string(topics.state)),
                                      JSONMember("value_template", .string(template)),
                                      JSONMember("icon", .string(icon))] + more)
        }
        // A value outside the options renders `None`, which Home Assistant shows as unknown
        // (a newer clock may add values: docs/control-protocol.md "Versioning").
        func oneOf(_ member: String, _ values: [String]) -> String {
            let list = values.map { "'\($0)'" }.joined(separator: ", ")
            return "{{ value_json.\(member) if value_json.\(member) in [\(list)] else None }}"
        }
        func enumeration(_ values: [String]) -> [JSONMember] {
            [JSONMember("device_class", .string("enum")), JSONMember("options", .array(values.map { .string($0) }))]
        }
        // Names whose slugs differ: Home Assistant makes the entity id from the name, and
        // "+10 s" and "−10 s" would both become `…_10_s`.
        return [
            button("start", "Start", command("start"), "mdi:play"),
            button("stop", "Stop", command("stop"), "mdi:pause"),
            button("reset", "Reset", command("reset"), "mdi:restart"),
            button("next_program", "Next program", command("mode"), "mdi:skip-next"),
            button("add_10_s", "Plus 10 s", #"{"command": "adjust", "seconds": 10}"#, "mdi:plus"),
            button("subtract_10_s", "Minus 10 s", #"{"command": "adjust", "seconds": -10}"#, "mdi:minus"),
            button("back", "Back", command("back"), "mdi:skip-previous"),
            ("select", "program", "Program", [
                JSONMember("command_topic", .string(topics.command)),
                JSONMember("command_template", .string(#"{"command": "program", "program": {{ value | tojson }}}"#)),
                JSONMember("state_topic", .string(topics.state)),
                JSONMember("value_template", .string("{{ value_json.program }}")),
                JSONMember("options", .array(options(including: running).map { .string($0) })),
                JSONMember("icon", .string("mdi:format-list-bulleted")),
            ]),
            sensor("phase_ends_at", "Phase ends", "{{ value_json.phase_ends_at }}", "mdi:timer-outline",
                   [JSONMember("device_class", .string("timestamp"))]),
            sensor("remaining", "Remaining", "{{ value_json.remaining }}", "mdi:timer-sand",
                   [JSONMember("device_class", .string("duration")), JSONMember("unit_of_measurement", .string("s")),
                    JSONMember("state_class", .string("measurement")), JSONMember("enabled_by_default", .bool(false))]),
            sensor("phase", "Phase", oneOf("phase", Self.phases), "mdi:boxing-glove", enumeration(Self.phases)),
            sensor("round", "Round", "{{ value_json.round }}", "mdi:counter", [JSONMember("state_class", .string("measurement"))]),
            sensor("state", "State", oneOf("state", Self.states), "mdi:state-machine", enumeration(Self.states)),
        ]
    }

    /// The retained config messages, in a fixed order; `running` is the program the clock runs.
    public func messages(running: String? = nil) -> [MQTTMessage] {
        entities(running: running).map(message)
    }

    /// The select's config alone, for when its options grow.
    public func selectMessage(running: String?) -> MQTTMessage {
        message(entities(running: running).first { $0.component == "select" }!)
    }

    func message(_ entity: (component: String, object: String, name: String, keys: [JSONMember])) -> MQTTMessage {
        let node = nodeID
        let device = JSONValue.object([
            JSONMember("identifiers", .array([.string(node)])),
            JSONMember("name", .string("RoundClock \(topics.prefix.split(separator: "/").last.map(String.init) ?? node)")),
            JSONMember("manufacturer", .string("RoundClock")),
            JSONMember("model", .string("RoundClock gym round clock")),
            JSONMember("sw_version", .string(version)),
        ])
        let origin = JSONValue.object([JSONMember("name", .string("roundclock-gateway")), JSONMember("sw_version", .string(version))])
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
