import RoundClockCore
import Testing
import TestSupport
@testable import RoundClockConfig

/// `[remote]` (the phone remote's gateway): every key, and a generated corpus of
/// `listen` and `pin` values that are either accepted exactly or refused in one line.
@Suite struct RemoteSettingsTests {
    @Test func everyRemoteKeyIsRead() throws {
        let config = try Config.parse("""
            [remote]
            pin = "482913"
            listen = "[::1]:8443"
            control = "/tmp/rc/control.sock"
            tls_cert = "tls/cert.pem"
            tls_key = "/etc/ssl/private/rc.key"
            hosts = ["Clock.Gym.Example.", "gym-pi", "clock.gym.example"]
            """, file: "/etc/roundclock/config.toml")
        #expect(config.remote.hosts == ["clock.gym.example", "gym-pi"])
        #expect(config.remote.pin == "482913")
        #expect(config.remote.listen == ListenAddress(host: "::1", port: 8443))
        #expect(config.remote.listen.description == "[::1]:8443")
        #expect(config.remote.control == "/tmp/rc/control.sock")
        #expect(config.remote.tlsCertificate == "/etc/roundclock/tls/cert.pem")
        #expect(config.remote.tlsKey == "/etc/ssl/private/rc.key")
    }

    @Test func remoteDefaults() throws {
        let remote = try Config.parse("", file: "/etc/roundclock/config.toml").remote
        #expect(remote.pin == nil && remote.tlsCertificate == nil && remote.tlsKey == nil && remote.hosts.isEmpty)
        #expect(remote.listen.description == "0.0.0.0:80")
        #expect(remote.control == "/run/roundclock/control.sock")
    }

    @Test func tvPageKeys() throws {
        let config = try Config.parse("""
            [remote]
            display_pin = true
            display_colors = { work = "#00FF00", warning = "#ffff00" }
            """, file: "/etc/roundclock/config.toml")
        #expect(config.remote.displayPin)
        #expect(config.remote.displayColors.work == "#00ff00")
        #expect(config.remote.displayColors.rest == "#ff4433")
        #expect(config.remote.displayColors.warning == "#ffff00")
        let defaults = try Config.parse("", file: "/etc/roundclock/config.toml").remote
        #expect(!defaults.displayPin)
    }

    @Test(arguments: ["red", "#12345", "#1234567", "#12345g", "12345678", "#"])
    func displayColorsRefusedInOneLine(_ color: String) {
        #expect(throws: ConfigError.self) {
            try Config.parse("[remote]\ndisplay_colors = { rest = \"\(color)\" }", file: "/etc/roundclock/config.toml")
        }
        do {
            _ = try Config.parse("[remote]\ndisplay_colors = { rest = \"\(color)\" }", file: "/etc/roundclock/config.toml")
        } catch {
            #expect("\(error)".contains("remote.display_colors.rest: \"\(color)\" is not a colour; use #rrggbb"), "\(error)")
            #expect(!"\(error)".contains("\n"))
        }
    }

    @Test(arguments: ["a", "gym-pi", "clock.gym.example", "x1.y-2.Z3.", String(repeating: "a", count: 63) + ".b"])
    func hostNamesAccepted(_ text: String) {
        #expect(RemoteSettings.hostName(text) == text.lowercased().trimmingSuffixDot)
    }

    @Test(arguments: ["", ".", "a..b", "-a", "a-", "a b", "évil.example", "a_b", "gym-pi:80", "[::1]", String(repeating: "a", count: 64),
                      String(repeating: "abc.", count: 64) + "x"])
    func hostNamesRefused(_ text: String) {
        #expect(RemoteSettings.hostName(text) == nil)
    }

    @Test(arguments: ["127.0.0.1:8080", "0.0.0.0:80", "rc-gym.local:443", "[::]:65535", "[fe80::1]:1"])
    func listenAddressesAccepted(_ text: String) throws {
        let address = try ListenAddress.parse(text)
        #expect(address.description == text)
    }

    /// Random strings over the characters that matter (digits, colons, brackets, dots,
    /// letters, a space, a newline, a non-ASCII digit): each is accepted with a port in
    /// 1–65535 that prints back as given, or refused with one line quoting it.
    @Test func generatedListenValuesAreAcceptedExactlyOrRefusedInOneLine() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("RemoteSettingsTests listen corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let pieces = ["1", "0", "9", "65535", "65536", "99999", ":", "[", "]", ".", "a", "f", "g", "-", " ", "\n", "٣", "::1", "127.0.0.1", "host", ""]
        for _ in 0..<3000 {
            let text = (0..<Int(random.next() % 7)).map { _ in random.pick(pieces) }.joined()
            do {
                let address = try ListenAddress.parse(text)
                #expect((1...65_535).contains(address.port), "seed \(seed): \(text.debugDescription)")
                #expect(address.description == text || "[\(address.host)]:\(address.port)" == text, "seed \(seed): \(text.debugDescription)")
            } catch {
                #expect(!error.message.contains("\n"), "seed \(seed): one line for \(text.debugDescription)")
                #expect(error.message.hasPrefix("\""), "quotes the value: \(error.message)")
            }
        }
    }

    @Test func generatedPinsAreFourToTwelveASCIIDigitsOrRefused() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("RemoteSettingsTests pin corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let pieces = ["0", "1", "7", "9", "a", " ", "\n", "٣", "１", "-", "+"]
        for _ in 0..<3000 {
            let pin = (0..<Int(random.next() % 15)).map { _ in random.pick(pieces) }.joined()
            let expectedValid = (4...12).contains(pin.unicodeScalars.count) && pin.unicodeScalars.allSatisfy { "0123456789".unicodeScalars.contains($0) }
            let problem = RemoteSettings.pinProblem(pin)
            #expect((problem == nil) == expectedValid, "seed \(seed): \(pin.debugDescription)")
            #expect(!(problem ?? "").contains("\n"), "seed \(seed): one line")
        }
    }
}

extension String {
    fileprivate var trimmingSuffixDot: String { hasSuffix(".") ? String(dropLast()) : self }
}
