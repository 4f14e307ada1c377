#if canImport(Glibc)
import Glibc
#endif
import Platform
import RoundClockConfig
import RoundClockCore

/// Applies the card's `roundclock.toml` at boot: checks it with the configuration checker,
/// and only if it passes writes the clock's configuration, the host name, the time zone and
/// the Wi-Fi connection, removes the Wi-Fi passphrase from the card and records the file as
/// applied. A file applied before is left alone; a refused one changes nothing and its
/// error goes to `errorFile` for the clock to show.
public struct CardApplier {
    /// Where the card's FAT partition is mounted, first found first.
    public var cardDirectories = ["/boot/firmware", "/boot"]
    public var system = SystemFiles()
    /// Where the last applied file's text is kept (its passphrase removed).
    public var stateDirectory = "/var/lib/roundclock-card"
    /// The refusal the clock shows on its panels and the phone page.
    public var errorFile = "/run/roundclock-card/error"
    /// The Pi's serial number (device tree), for the default host name.
    public var serialFile = "/sys/firmware/devicetree/base/serial-number"
    /// The clock's configuration, which the card's file replaces.
    public var configPath = Config.defaultPath
    /// The configuration checker: `check-config`'s, without the device checks.
    public var check: (_ text: String, _ file: String) throws(ConfigError) -> Config

    /// Names the card's file may have: Windows' editors add `.txt` behind a hidden extension.
    public static let fileNames = ["roundclock.toml", "roundclock.toml.txt"]
    /// The host name the image ships with: replaced by a unique one at first boot.
    public static let imageHostname = "roundclock"

    public init(check: @escaping (_ text: String, _ file: String) throws(ConfigError) -> Config) {
        self.check = check
    }

    public enum Outcome: Equatable {
        case noCard
        case unchanged(file: String)
        case applied(file: String, changes: [String])
        case refused(ConfigError)
    }

    /// One run: the outcome and the lines to log (the journal's).
    public func run() -> (outcome: Outcome, log: [String], failures: [String]) {
        var log: [String] = []
        var failures: [String] = []
        let outcome = apply(log: &log, failures: &failures)
        if case .refused(let error) = outcome {
            do throws(SystemError) {
                try writeError(error.description)
            } catch {
                failures.append("cannot keep the refusal for the clock: \(error)")
            }
        } else {
            clearError()
        }
        if let line = defaultHostname(failures: &failures) { log.append(line) }
        return (outcome, log, failures)
    }

    private func apply(log: inout [String], failures: inout [String]) -> Outcome {
        guard let file = findCard(log: &log) else {
            log.append("no card file (\(Self.fileNames.joined(separator: " or ")) in \(cardDirectories.joined(separator: ", "))): nothing to apply")
            return .noCard
        }
        let bytes: [UInt8]
        do throws(SystemError) {
            bytes = try SmallFiles.read(file, limit: 1 << 20, followSymlinks: false)
        } catch {
            return .refused(ConfigError(file: file, location: "", message: SmallFiles.isTooLarge(error) ? "larger than 1 MiB; not a card file" : error.why))
        }
        guard let text = CardText.normalized(bytes) else {
            return .refused(ConfigError(file: file, location: "", message: "not UTF-8 text; save it as UTF-8 (Notepad: Save as, Encoding UTF-8)"))
        }
        let kept = CardText.withoutPassphrase(text) ?? text
        if let applied = try? SmallFiles.readText(stateDirectory + "/applied.toml", limit: 1 << 20), applied == kept {
            log.append("\(file): applied before and unchanged: nothing to apply")
            return .unchanged(file: file)
        }
        let config: Config
        let written = withBoardKept(kept)
        do throws(ConfigError) {
            config = try check(text, file)
            try checkSystem(config, file: file)
            if written != kept { _ = try check(written, file) }
        } catch {
            return .refused(error)
        }
        do throws(SystemError) {
            let changes = try write(config, text: kept, configText: written, removingPassphrase: kept != text, file: file, log: &log)
            return .applied(file: file, changes: changes)
        } catch {
            failures.append("\(file): could not apply it: \(error); run again at the next boot")
            return .applied(file: file, changes: [])
        }
    }

    /// The card's file: a regular file, never a link (whose target's text an error would show).
    private func findCard(log: inout [String]) -> String? {
        for directory in cardDirectories {
            let found = Self.fileNames.map { "\(directory)/\($0)" }.filter { SystemFiles.isRegularFile($0, followingLinks: false) }
            if found.count > 1 { log.append("\(found[1]) is ignored: \(found[0]) is the card's file") }
            if let first = found.first { return first }
        }
        return nil
    }

    /// What the checker cannot see from the text: the zone in this system's zoneinfo, a board
    /// given by a path on the card (the configuration moves to /etc/roundclock).
    private func checkSystem(_ config: Config, file: String) throws(ConfigError) {
        if let zone = config.system.timezone, !system.isFile("/usr/share/zoneinfo/\(zone)") {
            throw ConfigError(file: file, location: "system.timezone", message: "\"\(zone)\" is not in this system's time zone database; use a name such as \"Europe/Berlin\" or \"UTC\"")
        }
        let cardDirectory = SystemFiles.directory(of: file)
        if case .file(let board) = config.board, board.hasPrefix(cardDirectory + "/"), !board.hasPrefix("/usr/") {
            throw ConfigError(file: file, location: "board", message: "a board path on the card is not kept; use an installed board such as \"/usr/share/roundclock/boards/pi4.toml\"")
        }
    }

    /// Writes each setting, then removes the passphrase from the card, then records the file.
    private func write(_ config: Config, text: String, configText: String, removingPassphrase: Bool, file: String,
                       log: inout [String]) throws(SystemError) -> [String] {
        var changes: [String] = []
        try system.write(configText, to: configPath)
        changes.append("clock settings to \(configPath)" + (configText == text ? "" : " (its board kept)"))
        if let name = config.system.hostname {
            try system.setHostname(name)
            changes.append("host name \(name)")
        }
        if let zone = config.system.timezone {
            try system.setTimezone(zone)
            changes.append("time zone \(zone)")
        }
        if let wifi = config.wifi { changes.append(try writeWifi(wifi)) }
        if removingPassphrase {
            do throws(SystemError) {
                try rewriteCard(file, with: text)
                changes.append("Wi-Fi passphrase removed from the card")
            } catch {
                log.append("\(file): the Wi-Fi passphrase could not be removed from the card: \(error)")
            }
        }
        try DurableFiles.prepareDirectory(stateDirectory)
        try DurableFiles.writeAtomically(text, path: stateDirectory + "/applied.toml", temp: stateDirectory + "/applied.toml.new",
                                         directory: stateDirectory, permissions: 0o600)
        log.append("\(file) applied: \(changes.joined(separator: "; "))")
        return changes
    }

    /// The card's text, with the board of the configuration it replaces when it names none:
    /// the image's configuration names the Pi's board, and a card need not.
    private func withBoardKept(_ text: String) -> String {
        guard !CardText.setsTopLevelKey("board", in: text), let current = system.read(configPath, limit: 1 << 20),
              let config = try? Config.parse(current, file: system.path(configPath)),
              case .file(let board) = config.board, board.hasPrefix("/"),
              !board.contains(where: { $0 == "\"" || $0 == "\\" || $0.isNewline }) else { return text }
        return "board = \"\(board)\"  # kept from the configuration the card's file replaced\n" + text
    }

    /// The NetworkManager profile and the radio's country; a card without the passphrase
    /// keeps the one of the same network applied before.
    private func writeWifi(_ wifi: WifiSettings) throws(SystemError) -> String {
        let profile = NetworkManagerKeyfile.directory + "/" + NetworkManagerKeyfile.fileName
        let earlier = system.read(profile).flatMap(NetworkManagerKeyfile.network)
        let psk = wifi.passphrase ?? (earlier?.ssid == wifi.ssid ? earlier?.psk : nil)
        try system.write(NetworkManagerKeyfile.text(wifi, psk: psk), to: profile, permissions: 0o600)
        var change = "Wi-Fi \"\(wifi.ssid)\"" + (psk == nil ? " (open network)" : wifi.passphrase == nil ? " (passphrase kept)" : "")
        if let country = wifi.country {
            try system.write("# Written by roundclock apply-card: the card's [wifi] country.\noptions cfg80211 ieee80211_regdom=\(country)\n",
                             to: "/etc/modprobe.d/roundclock-wifi.conf")
            change += " in \(country)"
        }
        return change
    }

    private func rewriteCard(_ file: String, with text: String) throws(SystemError) {
        let directory = SystemFiles.directory(of: file)
        try DurableFiles.writeAtomically(text, path: file, temp: directory + "/roundclock.tmp", directory: directory)
    }

    /// The image's `roundclock` host name made unique (`roundclock-1a2b`), unless the card
    /// names one.
    private func defaultHostname(failures: inout [String]) -> String? {
        let current = system.read("/etc/hostname")?.trimmed
        guard current == Self.imageHostname, let suffix = system.uniqueSuffix(serialFile: serialFile) else { return nil }
        let name = "\(Self.imageHostname)-\(suffix)"
        do throws(SystemError) {
            try system.setHostname(name)
        } catch {
            failures.append("cannot set the host name \(name): \(error)")
            return nil
        }
        return "host name \(name) (the image's default, unique to this Pi; [system] hostname on the card names another)"
    }

    private func writeError(_ message: String) throws(SystemError) {
        let directory = SystemFiles.directory(of: errorFile)
        try DurableFiles.prepareDirectory(directory)
        try DurableFiles.writeAtomically(message + "\n", path: errorFile, temp: errorFile + ".new", directory: directory)
    }

    private func clearError() {
        _ = errorFile.withCString { unlink($0) }
    }
}
