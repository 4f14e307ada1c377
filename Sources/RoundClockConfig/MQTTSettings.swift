import TOML

/// `[mqtt]`: the gateway's MQTT link to a broker (docs/mqtt-home-assistant.md).
/// Like `[remote]`, the clock only checks the table (so `check-config` reports its mistakes
/// and `run` accepts the file); `roundclock-gateway` connects, the clock never waits for a
/// broker. Files named here are read by the gateway, not by the clock.
public struct MQTTSettings: Sendable, Hashable {
    /// `host`: the broker, default `localhost` (a Mosquitto on the clock's own Pi).
    public var host = "localhost"
    /// `port`: default 1883, or 8883 (MQTT over TLS, IANA `secure-mqtt`) when `ca_file` is set.
    public var port: Int?
    /// `client_id`: default `roundclock-<hostname>`; printable ASCII without spaces.
    public var clientID: String?
    /// `username` and `password_file` (its first line is the password); a password needs a user.
    public var username: String?
    public var passwordFile: String?
    /// `ca_file`: PEM CA certificate(s) to verify the broker with; set = TLS.
    public var caFile: String?
    /// `topic_prefix`: default `roundclock/<hostname>` (`state`, `status`, `cmd` go below it).
    public var topicPrefix: String?
    /// `discovery_prefix`: Home Assistant's MQTT discovery prefix, default `homeassistant`.
    public var discoveryPrefix = "homeassistant"
    /// `keepalive`: seconds between MQTT PINGREQs (MQTT 3.1.1 section 3.1.2.10), 5–3600, default 60.
    public var keepalive = 60

    public static let keepaliveRange = 5...3600
    /// Longest accepted prefix; MQTT allows 65,535 bytes per topic, a prefix needs far fewer.
    public static let maximumPrefixBytes = 200

    public init() {}

    /// The port to connect to: `port`, else 8883 with TLS, else 1883.
    public var effectivePort: Int { port ?? (caFile == nil ? 1883 : 8883) }

    /// `topic_prefix`, or `roundclock/<hostname>` with any character a topic level cannot
    /// hold (`/`, `+`, `#`, control characters) made `_`.
    public func topicPrefix(hostname: String) -> String {
        topicPrefix ?? "roundclock/" + Self.topicLevel(hostname)
    }

    /// `client_id`, or `roundclock-<hostname>` with characters outside `[A-Za-z0-9_.-]` made `_`.
    public func clientID(hostname: String) -> String {
        if let clientID { return clientID }
        let safe = hostname.unicodeScalars.map { Self.isIDScalar($0) ? String($0) : "_" }.joined()
        return "roundclock-" + (safe.isEmpty ? "clock" : String(safe.prefix(48)))
    }

    /// `name` as one topic level: never empty, no wildcard, separator or control character.
    static func topicLevel(_ name: String) -> String {
        let safe = name.unicodeScalars.map { s in s == "/" || s == "+" || s == "#" || s.value < 0x20 || s.value == 0x7F ? "_" : String(s) }.joined()
        return safe.isEmpty ? "clock" : safe
    }

    private static func isIDScalar(_ s: Unicode.Scalar) -> Bool {
        (s.value >= 0x30 && s.value <= 0x39) || (s.value >= 0x41 && s.value <= 0x5A) || (s.value >= 0x61 && s.value <= 0x7A) || s == "_" || s == "-" || s == "."
    }

    /// Why `prefix` cannot be a topic prefix, or `nil`: 1–200 bytes of levels separated by
    /// single `/`, none empty, no wildcard `+`/`#` (MQTT 3.1.1 section 4.7.1), not starting
    /// with `$` (reserved for the broker, section 4.7.2).
    public static func prefixProblem(_ prefix: String) -> String? {
        let shown = escapedBasicString(prefix)
        guard !prefix.isEmpty, prefix.utf8.count <= maximumPrefixBytes else {
            return "\(shown) must be 1 to \(maximumPrefixBytes) bytes, e.g. \"roundclock/ring1\""
        }
        if prefix.contains("+") || prefix.contains("#") { return "\(shown) contains a wildcard + or #; a topic cannot" }
        if prefix.hasPrefix("$") { return "\(shown) starts with $, which is reserved for the broker's own topics" }
        if prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "\(shown) has an empty level (a leading, trailing or double /); e.g. \"roundclock/ring1\""
        }
        return nil
    }

    /// Why `id` cannot be a client id, or `nil`: 1–64 printable ASCII characters, no space.
    public static func clientIDProblem(_ id: String) -> String? {
        guard (1...64).contains(id.unicodeScalars.count), id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            return "\(escapedBasicString(id)) is not a usable client id; use 1 to 64 printable ASCII characters without spaces"
        }
        return nil
    }

    static func read(_ table: inout TOMLReader, configFile: String) throws(ConfigError) -> MQTTSettings {
        var mqtt = MQTTSettings()
        if let host = try table.string("host") {
            do throws(ListenAddress.Problem) {
                // A broker host is what `listen` accepts before its port.
                mqtt.host = try ListenAddress.parse(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:1" : "\(host):1").host
            } catch {
                throw table.fail("host", "\(escapedBasicString(host)) is not a host name, an IPv4 or an IPv6 address")
            }
        }
        mqtt.port = try table.int("port", in: 1...65_535)
        if let id = try table.string("client_id") {
            if let problem = clientIDProblem(id) { throw table.fail("client_id", problem) }
            mqtt.clientID = id
        }
        if let user = try table.string("username") {
            guard !user.isEmpty, user.utf8.count <= 256 else { throw table.fail("username", "must be 1 to 256 bytes") }
            mqtt.username = user
        }
        if let file = try table.string("password_file") {
            mqtt.passwordFile = try table.path(file, key: "password_file", configFile: configFile)
            guard mqtt.username != nil else { throw table.fail("password_file", "a password needs a username; add username = \"…\"") }
        }
        if let file = try table.string("ca_file") {
            mqtt.caFile = try table.path(file, key: "ca_file", configFile: configFile)
        }
        for key in ["topic_prefix", "discovery_prefix"] {
            guard let prefix = try table.string(key) else { continue }
            if let problem = prefixProblem(prefix) { throw table.fail(key, problem) }
            if key == "topic_prefix" { mqtt.topicPrefix = prefix } else { mqtt.discoveryPrefix = prefix }
        }
        if let seconds = try table.int("keepalive", in: keepaliveRange) { mqtt.keepalive = seconds }
        try table.finish()
        return mqtt
    }
}

/// `[sync]`: clocks in a group share one session (docs/sync.md); the
/// gateway does the sharing. The clock only checks the table.
public struct SyncSettings: Sendable, Hashable {
    /// `group`: the group's name, one MQTT topic level (`roundclock/group/<group>/session`).
    public var group: String

    public static let groupLengths = 1...64

    public init(group: String) { self.group = group }

    /// Why an explicit `[mqtt] client_id` cannot be this clock's member id in a group, or `nil`:
    /// the id travels in the group's messages, so only ASCII letters, digits, `-`, `_` and `.`.
    public static func memberProblem(_ clientID: String) -> String? {
        let allowed = clientID.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
            default: false
            }
        }
        guard !allowed else { return nil }
        return "[mqtt] client_id \(escapedBasicString(clientID)) is this clock's member id in the group; "
            + "use only ASCII letters, digits, '-', '_' and '.', e.g. \"ring1-north\""
    }

    /// Why `name` cannot name a group, or `nil`: 1–64 characters, none of `/ + #` (MQTT 3.1.1
    /// section 4.7: a level separator and the wildcards), no control character.
    public static func groupProblem(_ name: String) -> String? {
        let bad = name.unicodeScalars.contains { $0 == "/" || $0 == "+" || $0 == "#" || $0.value < 0x20 || $0.value == 0x7F }
        guard !bad, groupLengths.contains(name.count) else {
            return "\(escapedBasicString(name)) is not a usable group name; use 1 to 64 characters without / + or #, e.g. \"ring1\""
        }
        return nil
    }

    static func read(_ table: inout TOMLReader) throws(ConfigError) -> SyncSettings {
        let group = try table.requiredString("group")
        if let problem = groupProblem(group) { throw table.fail("group", problem) }
        try table.finish()
        return SyncSettings(group: group)
    }
}
