import TOML

/// `[remote]`: the phone remote (docs/remote.md). The clock only checks
/// the table (so `check-config` reports its mistakes and `run` accepts it); the separate
/// `roundclock-gateway` process uses it. Nothing here opens a network socket.
public struct RemoteSettings: Sendable, Hashable {
    /// `pin`: 4–12 ASCII digits; `nil` = the gateway generates one (`--show-pin`).
    public var pin: String?
    /// `listen`: where the gateway serves the page, default `0.0.0.0:80` (so the phone
    /// reaches `http://<hostname>.local`; 443 is the usual choice with TLS).
    public var listen = ListenAddress(host: "0.0.0.0", port: 80)
    /// `control`: the clock's control socket.
    public var control = RemoteSettings.defaultControlSocket
    /// `tls_cert` and `tls_key`: PEM files of a user-provided certificate; both or neither.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// `hosts`: more names the phones may use for the gateway (a DNS name of the Pi, a
    /// router's name for it), lowercase, without a trailing dot. The gateway accepts these,
    /// `<hostname>.local`, `localhost` and IP addresses in a request's `Host`; nothing else.
    public var hosts: [String] = []
    /// `display_pin`: whether the TV page (`/display`) needs the PIN to be viewed; controlling
    /// always does, and the TV page has no controls.
    public var displayPin = false
    /// `display_colors`: the TV page's digit colours per phase, `#rrggbb`.
    public var displayColors = DisplayColors()
    /// `pin_on_panels`: whether the gateway gives the clock its PIN, which the panels show
    /// until a phone has logged in and when the owner asks with the buttons.
    public var pinOnPanels = true

    /// The TV page's colours: work, rest (prep too), and a work phase's warning window.
    public struct DisplayColors: Sendable, Hashable {
        public var work = "#33dd55"
        public var rest = "#ff4433"
        public var warning = "#ffbb00"
        public init() {}
    }

    /// The clock unit's `RuntimeDirectory=roundclock` socket.
    public static let defaultControlSocket = "/run/roundclock/control.sock"
    /// Accepted PIN lengths: at least 4 digits (10,000 codes against the rate limit).
    public static let pinLengths = 4...12

    public init() {}

    /// Why `pin` is unusable, or `nil` when it is 4–12 ASCII digits.
    public static func pinProblem(_ pin: String) -> String? {
        let digitsOnly = pin.unicodeScalars.allSatisfy { $0.value >= 0x30 && $0.value <= 0x39 }
        guard digitsOnly, pinLengths.contains(pin.unicodeScalars.count) else {
            return "\(escapedBasicString(pin)) is not a usable PIN; use \(pinLengths.lowerBound) to \(pinLengths.upperBound) digits 0-9"
        }
        return nil
    }

    /// `text` as a `Host` header names it (lowercase, no trailing dot), or `nil` when it is
    /// not a DNS name: labels of ASCII letters, digits and '-' (not first or last), 1-63
    /// characters each, 253 in all.
    public static func hostName(_ text: String) -> String? {
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.unicodeScalars.count <= 253 else { return nil }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            let scalars = Array(label.unicodeScalars)
            guard (1...63).contains(scalars.count), scalars.first != "-", scalars.last != "-",
                  scalars.allSatisfy({ ($0.value >= 0x61 && $0.value <= 0x7A) || ($0.value >= 0x30 && $0.value <= 0x39) || $0 == "-" })
            else { return nil }
        }
        return name
    }

    /// Whether `text` is `#` and six hexadecimal digits.
    static func isColor(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        return scalars.count == 7 && scalars[0] == "#" && scalars.dropFirst().allSatisfy { s in
            (s.value >= 0x30 && s.value <= 0x39) || (s.value >= 0x61 && s.value <= 0x66) || (s.value >= 0x41 && s.value <= 0x46)
        }
    }

    static func read(_ table: inout TOMLReader, configFile: String) throws(ConfigError) -> RemoteSettings {
        var remote = RemoteSettings()
        if let pin = try table.string("pin") {
            if let problem = pinProblem(pin) { throw table.fail("pin", problem) }
            remote.pin = pin
        }
        if let listen = try table.string("listen") {
            do throws(ListenAddress.Problem) {
                remote.listen = try ListenAddress.parse(listen)
            } catch {
                throw table.fail("listen", error.message)
            }
        }
        if let control = try table.string("control") {
            remote.control = try table.path(control, key: "control", configFile: configFile)
        }
        if let cert = try table.string("tls_cert") {
            remote.tlsCertificate = try table.path(cert, key: "tls_cert", configFile: configFile)
        }
        if let key = try table.string("tls_key") {
            remote.tlsKey = try table.path(key, key: "tls_key", configFile: configFile)
        }
        if let hosts = try table.strings("hosts") {
            remote.hosts = []
            for host in hosts {
                guard let name = hostName(host) else {
                    throw table.fail("hosts", "\(escapedBasicString(host)) is not a host name; use letters, digits, '-' and '.', e.g. \"clock.gym.example\"")
                }
                if !remote.hosts.contains(name) { remote.hosts.append(name) }
            }
        }
        if let displayPin = try table.bool("display_pin") { remote.displayPin = displayPin }
        if let pinOnPanels = try table.bool("pin_on_panels") { remote.pinOnPanels = pinOnPanels }
        if var colors = try table.table("display_colors") {
            for key in ["work", "rest", "warning"] {
                guard let text = try colors.string(key) else { continue }
                guard isColor(text) else {
                    throw colors.fail(key, "\(escapedBasicString(text)) is not a colour; use #rrggbb, e.g. \"#33dd55\"")
                }
                switch key {
                case "work": remote.displayColors.work = text.lowercased()
                case "rest": remote.displayColors.rest = text.lowercased()
                default: remote.displayColors.warning = text.lowercased()
                }
            }
            try colors.finish()
        }
        if (remote.tlsCertificate == nil) != (remote.tlsKey == nil) {
            throw table.fail(remote.tlsKey == nil ? "tls_key" : "tls_cert", "tls_cert and tls_key go together; give both (PEM files) or neither")
        }
        try table.finish()
        return remote
    }
}

/// `HOST:PORT` as `--listen` and `[remote] listen` take it: an IPv4 address, a host name,
/// or an IPv6 address in brackets (`[::1]:8080`); port 1–65535.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public struct Problem: Error, Sendable, Hashable {
        public var message: String
    }

    /// `allowAnyPort`: port 0 (the system picks a free one) is accepted, as `--listen` does
    /// for tests; a config file must name the port the phones use.
    public static func parse(_ text: String, allowAnyPort: Bool = false) throws(Problem) -> ListenAddress {
        let shown = escapedBasicString(text)
        let expected = "expected HOST:PORT, e.g. \"0.0.0.0:80\", \"127.0.0.1:8080\" or \"[::1]:8080\""
        guard let colon = text.lastIndex(of: ":") else { throw Problem(message: "\(shown) has no port; \(expected)") }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
            host = String(host.dropFirst().dropLast())
            guard host.unicodeScalars.allSatisfy({ isHexDigit($0) || $0 == ":" || $0 == "." }) else {
                throw Problem(message: "\(shown): \(escapedBasicString(host)) is not an IPv6 address; \(expected)")
            }
        } else {
            let allowed = { (s: Unicode.Scalar) in isHexDigit(s) || (s.value >= 0x61 && s.value <= 0x7A) || (s.value >= 0x41 && s.value <= 0x5A) || s == "." || s == "-" }
            guard !host.isEmpty, host.unicodeScalars.count <= 253, host.unicodeScalars.allSatisfy(allowed) else {
                throw Problem(message: "\(shown): the host must be an IPv4 address, a host name or [IPv6]; \(expected)")
            }
        }
        let anyPort = allowAnyPort && portText == "0"
        guard !portText.isEmpty, portText.count <= 5, portText.first != "0" || anyPort,
              portText.unicodeScalars.allSatisfy({ $0.value >= 0x30 && $0.value <= 0x39 }),
              let port = Int(portText), (1...65_535).contains(port) || anyPort else {
            throw Problem(message: "\(shown): the port must be a number from 1 to 65535; \(expected)")
        }
        return ListenAddress(host: host, port: port)
    }

    private static func isHexDigit(_ s: Unicode.Scalar) -> Bool {
        (s.value >= 0x30 && s.value <= 0x39) || (s.value >= 0x61 && s.value <= 0x66) || (s.value >= 0x41 && s.value <= 0x46)
    }
}
