import TOML

/// `[system]`: the Pi's own settings, applied from the card's `roundclock.toml` at boot by
/// `roundclock apply-card` (docs/install.md). The clock and the gateway only check the table.
public struct SystemSettings: Sendable, Hashable {
    /// `hostname`: one DNS label (`<hostname>.local` is the phone page's address);
    /// `nil`: the image's default, unique per Pi.
    public var hostname: String?
    /// `timezone`: a tz database name such as `Europe/Berlin`, for the wall clock, `start_at`
    /// and the brightness schedule.
    public var timezone: String?

    public init(hostname: String? = nil, timezone: String? = nil) {
        self.hostname = hostname
        self.timezone = timezone
    }

    static func read(_ table: inout TOMLReader) throws(ConfigError) -> SystemSettings {
        var settings = SystemSettings()
        if let name = try table.string("hostname") {
            if let problem = hostnameProblem(name) { throw table.fail("hostname", problem) }
            settings.hostname = name
        }
        if let zone = try table.string("timezone") {
            if let problem = timezoneProblem(zone) { throw table.fail("timezone", problem) }
            settings.timezone = zone
        }
        try table.finish()
        return settings
    }

    /// Why `name` cannot be a host name (one label of 1–63 lowercase letters, digits and
    /// '-', not starting or ending with '-'), or `nil`.
    public static func hostnameProblem(_ name: String) -> String? {
        let shown = escapedBasicString(name)
        let allowed = "use 1 to 63 lowercase letters, digits and '-', e.g. \"gym-clock\""
        guard (1...63).contains(name.utf8.count) else { return "\(shown) is not a host name; \(allowed)" }
        if name.contains(".") { return "\(shown) holds a dot; give the name alone (the phone adds .local); \(allowed)" }
        guard name.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
            let lower = name.lowercased()
            if lower != name, hostnameProblem(lower) == nil { return "\(shown) has capitals; write \"\(lower)\"" }
            return "\(shown) is not a host name; \(allowed)"
        }
        if name.hasPrefix("-") || name.hasSuffix("-") { return "\(shown) starts or ends with '-'; \(allowed)" }
        return nil
    }

    /// Why `zone` cannot be a tz database name, or `nil`. Only the form is checked here:
    /// `apply-card` also finds it in the system's zoneinfo.
    public static func timezoneProblem(_ zone: String) -> String? {
        let example = "use a name from the tz database such as \"Europe/Berlin\", \"America/New_York\" or \"UTC\""
        let parts = zone.split(separator: "/", omittingEmptySubsequences: false)
        let wellFormed = !zone.isEmpty && zone.utf8.count <= 64 && parts.allSatisfy { part in
            !part.isEmpty && part != "." && part != ".." && part.utf8.allSatisfy {
                ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39)
                    || $0 == 0x5F || $0 == 0x2D || $0 == 0x2B || $0 == 0x2E
            }
        }
        return wellFormed ? nil : "\(escapedBasicString(zone)) is not a time zone name; \(example)"
    }
}

/// `[wifi]`: the wireless network the Pi joins, written by `roundclock apply-card` as the
/// network stack's own connection (NetworkManager). The passphrase is removed from the card
/// once applied; a file that still names the same network without one keeps it.
public struct WifiSettings: Sendable, Hashable {
    /// `ssid`: 1–32 bytes.
    public var ssid: String
    /// `passphrase`: 8–63 printable ASCII characters or 64 hex digits (WPA2/WPA3 personal);
    /// `nil`: the one kept from an earlier card, or an open network.
    public var passphrase: String?
    /// `country`: ISO 3166 two-letter code for the radio's channels and power (`GB`, `DE`, `US`).
    public var country: String?
    /// `hidden`: the network does not broadcast its name.
    public var hidden = false

    public init(ssid: String, passphrase: String? = nil, country: String? = nil, hidden: Bool = false) {
        self.ssid = ssid
        self.passphrase = passphrase
        self.country = country
        self.hidden = hidden
    }

    static func read(_ table: inout TOMLReader) throws(ConfigError) -> WifiSettings {
        let ssid = try table.requiredString("ssid")
        guard (1...32).contains(ssid.utf8.count) else {
            throw table.fail("ssid", "\(escapedBasicString(ssid)) is \(ssid.utf8.count) bytes; a network name has 1 to 32")
        }
        var wifi = WifiSettings(ssid: ssid)
        if let passphrase = try table.string("passphrase") {
            if let problem = passphraseProblem(passphrase) { throw table.fail("passphrase", problem) }
            wifi.passphrase = passphrase
        }
        if let country = try table.string("country") {
            guard country.utf8.count == 2, country.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) else {
                throw table.fail("country", "\(escapedBasicString(country)) is not a country code; use the two letters of ISO 3166, e.g. \"GB\", \"DE\" or \"US\"")
            }
            wifi.country = country.uppercased()
        }
        if let hidden = try table.bool("hidden") { wifi.hidden = hidden }
        try table.finish()
        return wifi
    }

    /// Why `passphrase` cannot be a WPA passphrase, or `nil`; the message never shows it.
    public static func passphraseProblem(_ passphrase: String) -> String? {
        let bytes = Array(passphrase.utf8)
        if bytes.count == 64 {
            let hex = bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }
            return hex ? nil : "64 characters must be hex digits (a raw key); a passphrase has 8 to 63 characters"
        }
        guard (8...63).contains(bytes.count) else {
            return "has \(passphrase.count) characters; a WPA passphrase has 8 to 63 (or is a 64-hex-digit key)"
        }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            return "holds a character outside printable ASCII, which WPA passphrases cannot hold"
        }
        return nil
    }
}
