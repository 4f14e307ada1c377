import Testing
import TestSupport
@testable import RoundClockConfig

/// `[mqtt]` and `[sync]`: every key, the defaults, and generated corpora of
/// prefixes, group names and client ids that are either accepted exactly or refused in one line.
@Suite struct MQTTSettingsTests {
    @Test func everyMQTTKeyIsRead() throws {
        let config = try Config.parse("""
            [mqtt]
            host = "broker.gym.lan"
            port = 8884
            client_id = "ring1-north"
            username = "clock"
            password_file = "mqtt.pass"
            ca_file = "/etc/ssl/certs/gym-ca.pem"
            topic_prefix = "gym/ring1"
            discovery_prefix = "ha"
            keepalive = 30
            [sync]
            group = "ring1"
            """, file: "/etc/roundclock/config.toml")
        let mqtt = try #require(config.mqtt)
        #expect(mqtt.host == "broker.gym.lan" && mqtt.effectivePort == 8884)
        #expect(mqtt.clientID(hostname: "pi") == "ring1-north")
        #expect(mqtt.username == "clock" && mqtt.passwordFile == "/etc/roundclock/mqtt.pass")
        #expect(mqtt.caFile == "/etc/ssl/certs/gym-ca.pem")
        #expect(mqtt.topicPrefix(hostname: "pi") == "gym/ring1" && mqtt.discoveryPrefix == "ha")
        #expect(mqtt.keepalive == 30)
        #expect(config.sync == SyncSettings(group: "ring1"))
    }

    /// With `[sync]`, an explicit client id is the member id in the group's messages: what the
    /// gateway would refuse at start, `check-config` refuses first.
    @Test func aGroupMemberIdIsCheckedWithTheConfig() throws {
        let line = "[mqtt]\nclient_id = \"ring1+south\"\n[sync]\ngroup = \"ring1\"\n"
        let error = try #require(thrownError(ConfigError.self) { _ = try Config.parse(line, file: "c.toml") })
        #expect(error.description.hasPrefix("c.toml: line 4: sync.group: [mqtt] client_id \"ring1+south\" is this clock's member id"))
        #expect(try Config.parse("[mqtt]\nclient_id = \"ring1+south\"\n", file: "c.toml").mqtt != nil)
        #expect(try Config.parse("[mqtt]\nclient_id = \"ring1.south_2\"\n[sync]\ngroup = \"ring1\"\n", file: "c.toml").sync != nil)
    }

    @Test func defaultsFollowTheHostname() throws {
        #expect(try Config.parse("", file: "c.toml").mqtt == nil)
        #expect(try Config.parse("", file: "c.toml").sync == nil)
        let mqtt = try #require(try Config.parse("[mqtt]\n", file: "c.toml").mqtt)
        #expect(mqtt.host == "localhost" && mqtt.effectivePort == 1883 && mqtt.keepalive == 60)
        #expect(mqtt.topicPrefix(hostname: "gym-pi") == "roundclock/gym-pi")
        #expect(mqtt.topicPrefix(hostname: "a/b+#") == "roundclock/a_b__")
        #expect(mqtt.topicPrefix(hostname: "") == "roundclock/clock")
        #expect(mqtt.clientID(hostname: "gym-pi") == "roundclock-gym-pi")
        #expect(mqtt.clientID(hostname: "gym pi ü") == "roundclock-gym_pi__")
        #expect(mqtt.discoveryPrefix == "homeassistant")
        let tls = try #require(try Config.parse("[mqtt]\nca_file = \"ca.pem\"\n", file: "/etc/rc/config.toml").mqtt)
        #expect(tls.effectivePort == 8883 && tls.caFile == "/etc/rc/ca.pem")
        #expect(try Config.parse("[mqtt]\nhost = \"::1\"\n", file: "c.toml").mqtt?.host == "::1")
        #expect(try Config.parse("[mqtt]\nhost = \"[fe80::1]\"\n", file: "c.toml").mqtt?.host == "fe80::1")
    }

    static let topicPieces = ["ring1", "a", "/", "//", "+", "#", "$", " ", "\n", "ü", "-", "_", "\u{7F}", ""]

    /// Random prefixes from the characters that matter: accepted ones are non-empty levels
    /// without wildcards; refused ones get one line quoting the value.
    @Test func generatedPrefixesAreValidTopicsOrRefusedInOneLine() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("MQTTSettingsTests prefix corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        for _ in 0..<3000 {
            let prefix = (0..<Int(random.next() % 6)).map { _ in random.pick(Self.topicPieces) }.joined()
            let expectedValid = !prefix.isEmpty && !prefix.contains("+") && !prefix.contains("#") && !prefix.hasPrefix("$")
                && !prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            let problem = MQTTSettings.prefixProblem(prefix)
            #expect((problem == nil) == expectedValid, "seed \(seed): \(prefix.debugDescription)")
            #expect(!(problem ?? "").contains("\n") && (problem ?? "\"").hasPrefix("\""), "seed \(seed): one line quoting the value")
            // Through the whole reader, a control character is refused too.
            let toml = "[mqtt]\ntopic_prefix = \(Self.basicString(prefix))\n"
            let accepted = (try? Config.parse(toml, file: "c.toml")) != nil
            let hasControl = prefix.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            #expect(accepted == (expectedValid && !hasControl), "seed \(seed): \(prefix.debugDescription)")
        }
    }

    /// `text` as a TOML basic string (TOML 1.0 "String": `\"`, `\\`, `\uXXXX`).
    static func basicString(_ text: String) -> String {
        let body = text.unicodeScalars.map { s -> String in
            if s == "\"" || s == "\\" { return "\\" + String(s) }
            if s.value < 0x20 || s.value == 0x7F { return "\\u00" + (s.value < 0x10 ? "0" : "") + String(s.value, radix: 16) }
            return String(s)
        }.joined()
        return "\"" + body + "\""
    }

    @Test func generatedGroupNamesAreOneTopicLevelOrRefused() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("MQTTSettingsTests group corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let pieces = Self.topicPieces + [String(repeating: "x", count: 30)]
        for _ in 0..<3000 {
            let group = (0..<Int(random.next() % 5)).map { _ in random.pick(pieces) }.joined()
            let expectedValid = (1...64).contains(group.count)
                && !group.unicodeScalars.contains { "/+#".unicodeScalars.contains($0) || $0.value < 0x20 || $0.value == 0x7F }
            let problem = SyncSettings.groupProblem(group)
            #expect((problem == nil) == expectedValid, "seed \(seed): \(group.debugDescription)")
            #expect(!(problem ?? "").contains("\n"), "seed \(seed): one line")
        }
    }

    @Test func generatedClientIDsArePrintableASCIIOrRefused() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("MQTTSettingsTests client id corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let pieces = ["ring1", "-", " ", "\t", "é", "~", "\u{7F}", String(repeating: "c", count: 40), ""]
        for _ in 0..<3000 {
            let id = (0..<Int(random.next() % 4)).map { _ in random.pick(pieces) }.joined()
            let expectedValid = (1...64).contains(id.unicodeScalars.count) && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
            let problem = MQTTSettings.clientIDProblem(id)
            #expect((problem == nil) == expectedValid, "seed \(seed): \(id.debugDescription)")
            #expect(!(problem ?? "").contains("\n"), "seed \(seed): one line")
        }
    }
}
