import Hex
import RoundClockConfig

/// A card's `[wifi]` as a NetworkManager connection profile (`nm-settings-keyfile(5)`),
/// `/etc/NetworkManager/system-connections/roundclock-wifi.nmconnection`, mode 0600.
public enum NetworkManagerKeyfile {
    public static let directory = "/etc/NetworkManager/system-connections"
    public static let fileName = "roundclock-wifi.nmconnection"

    /// The profile's text. `psk` is the passphrase to write (the card's, or the one kept);
    /// `nil`: an open network.
    public static func text(_ wifi: WifiSettings, psk: String?) -> String {
        var lines = [
            "# Written by roundclock apply-card from the card's roundclock.toml [wifi].",
            "[connection]", "id=roundclock-wifi", "uuid=\(uuid(for: wifi.ssid))", "type=wifi", "autoconnect=true", "",
            "[wifi]", "mode=infrastructure", "ssid=\(ssidValue(wifi.ssid))",
        ]
        if wifi.hidden { lines.append("hidden=true") }
        if let psk { lines += ["", "[wifi-security]", "key-mgmt=wpa-psk", "psk=\(escaped(psk))"] }
        lines += ["", "[ipv4]", "method=auto", "", "[ipv6]", "method=auto", ""]
        return lines.joined(separator: "\n")
    }

    /// The SSID and passphrase of a profile this command wrote, to keep the passphrase when a
    /// later card names the same network without it.
    public static func network(in text: String) -> (ssid: String, psk: String?)? {
        var ssid: String?
        var psk: String?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("ssid=") { ssid = unescaped(line.dropFirst(5)) }
            if line.hasPrefix("psk=") { psk = unescaped(line.dropFirst(4)) }
        }
        guard let ssid else { return nil }
        return (ssid, psk)
    }

    /// Printable ASCII without `;` as a keyfile string; anything else as the byte list
    /// keyfiles also take (`ssid=71;121;109;`).
    static func ssidValue(_ ssid: String) -> String {
        let plain = ssid.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x3B }
        return plain ? escaped(ssid) : ssid.utf8.map { "\($0);" }.joined()
    }

    /// GLib key file escapes: backslash, a leading space.
    static func escaped(_ value: String) -> String {
        var out = String(value.flatMap { $0 == "\\" ? ["\\", "\\"] : [$0] })
        if out.hasPrefix(" ") { out = "\\s" + out.dropFirst() }
        return out
    }

    private static func unescaped(_ value: Substring) -> String {
        let listed = value.hasSuffix(";") ? value.dropLast().split(separator: ";").map { UInt8($0) } : []
        if !listed.isEmpty, !listed.contains(nil) {
            return String(decoding: listed.compactMap { $0 }, as: UTF8.self)
        }
        var out = ""
        var escaping = false
        for character in value {
            if escaping {
                out.append(character == "s" ? " " : character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// A UUID of the RFC 4122 form derived from the SSID: the same network keeps one profile.
    static func uuid(for ssid: String) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            ssid.utf8.reduce(seed) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        }
        let high = fnv(0xCBF2_9CE4_8422_2325), low = fnv(0x8422_2325_CBF2_9CE4)
        var digits = (hex(high, digits: 16) + hex(low, digits: 16)).map(String.init)
        digits[12] = "4"
        digits[16] = ["8", "9", "a", "b"][Int(low >> 62)]
        let text = digits.joined()
        func part(_ from: Int, _ count: Int) -> String {
            String(text.dropFirst(from).prefix(count))
        }
        return [part(0, 8), part(8, 4), part(12, 4), part(16, 4), part(20, 12)].joined(separator: "-")
    }
}
