import CardSetup
import Foundation
import RoundClockConfig
import Testing

/// A card directory and a system root in a temporary directory, with the zoneinfo files
/// the tests name.
struct CardBench {
    let base: String
    var card: String { base + "/card" }
    var root: String { base + "/root" }
    var state: String { base + "/state" }
    var errorFile: String { base + "/run/error" }

    init() throws {
        base = NSTemporaryDirectory() + "card-\(UUID().uuidString)"
        for directory in [card, root + "/etc", root + "/usr/share/zoneinfo/Europe"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try "TZif".write(toFile: root + "/usr/share/zoneinfo/Europe/Berlin", atomically: true, encoding: .utf8)
        try "127.0.0.1\tlocalhost\n127.0.1.1\troundclock\n".write(toFile: root + "/etc/hosts", atomically: true, encoding: .utf8)
        try "roundclock\n".write(toFile: root + "/etc/hostname", atomically: true, encoding: .utf8)
        try "0123456789abcdef0123456789abcdef\n".write(toFile: root + "/etc/machine-id", atomically: true, encoding: .utf8)
    }

    func put(_ text: String, name: String = "roundclock.toml") throws {
        try text.write(toFile: card + "/" + name, atomically: true, encoding: .utf8)
    }

    func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
    func system(_ absolute: String) -> String? { read(root + absolute) }

    func applier() -> CardApplier {
        var applier = CardApplier { text, file throws(ConfigError) in try Config.parse(text, file: file) }
        applier.cardDirectories = [card]
        applier.system = SystemFiles(root: root)
        applier.stateDirectory = state
        applier.errorFile = errorFile
        applier.serialFile = base + "/serial-number"
        return applier
    }

    func remove() { try? FileManager.default.removeItem(atPath: base) }
}

@Suite struct CardApplierTests {
    static let card = """
        program = "tabata"
        [remote]
        pin = "482913"
        [system]
        hostname = "gym-clock"
        timezone = "Europe/Berlin"
        [wifi]
        ssid = "GymNet"
        passphrase = "correct horse battery"
        country = "gb"
        """

    @Test func aGoodCardIsAppliedOnceAndItsPassphraseLeavesTheCard() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        try bench.put(Self.card)
        let first = bench.applier().run()
        guard case .applied(_, let changes) = first.outcome else { Issue.record("\(first)"); return }
        #expect(changes.contains("host name gym-clock") && changes.contains("time zone Europe/Berlin"))
        #expect(first.failures.isEmpty)

        let config = try Config.parse(try #require(bench.system("/etc/roundclock/config.toml")), file: "config")
        #expect(config.program.name == "tabata" && config.remote.pin == "482913")
        #expect(bench.system("/etc/hostname") == "gym-clock\n")
        #expect(bench.system("/etc/hosts") == "127.0.0.1\tlocalhost\n127.0.1.1\tgym-clock\n")
        #expect(bench.system("/etc/timezone") == "Europe/Berlin\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: bench.root + "/etc/localtime")
            == "/usr/share/zoneinfo/Europe/Berlin")
        let profile = bench.root + "/etc/NetworkManager/system-connections/roundclock-wifi.nmconnection"
        #expect(bench.read(profile)?.contains("psk=correct horse battery\n") == true)
        let mode = try FileManager.default.attributesOfItem(atPath: profile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(bench.system("/etc/modprobe.d/roundclock-wifi.conf")?.contains("ieee80211_regdom=GB") == true)

        let onCard = try #require(bench.read(bench.card + "/roundclock.toml"))
        #expect(!onCard.contains("correct horse") && onCard.contains(CardText.removedPassphrase))
        #expect(!(bench.system("/etc/roundclock/config.toml") ?? "").contains("correct horse"))

        let second = bench.applier().run()
        #expect(second.outcome == .unchanged(file: bench.card + "/roundclock.toml"))
    }

    @Test func aLaterEditAppliesAgainAndKeepsThePassphraseOfTheSameNetwork() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        try bench.put(Self.card)
        _ = bench.applier().run()
        let edited = try #require(bench.read(bench.card + "/roundclock.toml")).replacingOccurrences(of: "\"tabata\"", with: "\"emom\"")
        try bench.put(edited)
        let run = bench.applier().run()
        guard case .applied(_, let changes) = run.outcome else { Issue.record("\(run)"); return }
        #expect(changes.contains("Wi-Fi \"GymNet\" (passphrase kept) in GB"))
        let profile = bench.root + "/etc/NetworkManager/system-connections/roundclock-wifi.nmconnection"
        #expect(bench.read(profile)?.contains("psk=correct horse battery\n") == true)
        #expect(bench.system("/etc/roundclock/config.toml")?.contains("\"emom\"") == true)
    }

    @Test func aBadCardChangesNothingAndLeavesItsErrorForTheClock() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        try bench.put(Self.card)
        _ = bench.applier().run()
        let before = bench.system("/etc/roundclock/config.toml")
        try bench.put("program = \"boxing\"\n[system]\nhostname = \"Gym Clock\"\n[wifi]\nssid = \"Other\"\npassphrase = \"short\"\n")
        let run = bench.applier().run()
        guard case .refused(let error) = run.outcome else { Issue.record("\(run)"); return }
        #expect(error.description.contains("system.hostname"))
        #expect(bench.system("/etc/roundclock/config.toml") == before)
        #expect(bench.system("/etc/hostname") == "gym-clock\n")
        #expect(bench.read(bench.errorFile) == error.description + "\n")
        #expect(bench.read(bench.card + "/roundclock.toml")?.contains("passphrase = \"short\"") == true)

        try bench.put(Self.card.replacingOccurrences(of: "tabata", with: "boxing"))
        guard case .applied = bench.applier().run().outcome else { Issue.record("not applied"); return }
        #expect(bench.read(bench.errorFile) == nil)
    }

    @Test func aSyntaxErrorNamesItsLine() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        try bench.put("program = \"boxing\"\n\n[remote\npin = \"1234\"\n")
        guard case .refused(let error) = bench.applier().run().outcome else { Issue.record("not refused"); return }
        #expect(error.location.hasPrefix("line 3"))
    }

    @Test func aTimeZoneThisSystemLacksIsRefused() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        try bench.put("[system]\ntimezone = \"Mars/Olympus\"\n")
        guard case .refused(let error) = bench.applier().run().outcome else { Issue.record("not refused"); return }
        #expect(error.location == "system.timezone")
        #expect(bench.system("/etc/timezone") == nil)
    }

    @Test func notepadsFileWithItsMarkAndLineEndsIsApplied() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("program = \"emom\"\r\n[system]\r\nhostname = \"ring-2\"\r\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: bench.card + "/roundclock.toml.txt"))
        let run = bench.applier().run()
        guard case .applied(let file, _) = run.outcome else { Issue.record("\(run)"); return }
        #expect(file.hasSuffix("roundclock.toml.txt"))
        #expect(bench.system("/etc/roundclock/config.toml") == "program = \"emom\"\n[system]\nhostname = \"ring-2\"\n")
        #expect(bench.system("/etc/hostname") == "ring-2\n")
    }

    @Test func theImagesHostnameBecomesUniqueToThePi() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        try "10000000c0ffee42\u{0}".write(toFile: bench.base + "/serial-number", atomically: true, encoding: .utf8)
        let run = bench.applier().run()
        #expect(run.outcome == .noCard)
        #expect(bench.system("/etc/hostname") == "roundclock-ee42\n")
        #expect(bench.system("/etc/hosts")?.contains("127.0.1.1\troundclock-ee42\n") == true)
        // Named by the owner (or renamed once): left alone.
        _ = bench.applier().run()
        #expect(bench.system("/etc/hostname") == "roundclock-ee42\n")
    }

    @Test func aCardWithoutABoardKeepsTheImagesBoard() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        try FileManager.default.createDirectory(atPath: bench.root + "/etc/roundclock", withIntermediateDirectories: true)
        try "board = \"/usr/share/roundclock/boards/pi4.toml\"\nprogram = \"boxing\"\n"
            .write(toFile: bench.root + "/etc/roundclock/config.toml", atomically: true, encoding: .utf8)
        try bench.put("program = \"tabata\"\n[remote]\npin = \"4821\"\n")
        let run = bench.applier().run()
        guard case .applied(_, let changes) = run.outcome else { Issue.record("\(run)"); return }
        #expect(changes.first == "clock settings to /etc/roundclock/config.toml (its board kept)")
        let written = try Config.parse(try #require(bench.system("/etc/roundclock/config.toml")), file: "config")
        #expect(written.board == .file("/usr/share/roundclock/boards/pi4.toml") && written.program.name == "tabata")
        // A card naming its board keeps its own.
        try bench.put("board = \"simulator\"\nprogram = \"emom\"\n")
        _ = bench.applier().run()
        #expect(bench.system("/etc/roundclock/config.toml") == "board = \"simulator\"\nprogram = \"emom\"\n")
    }

    @Test func aLinkNamedLikeTheCardsFileIsNotRead() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        try "secret-first-word: x\n".write(toFile: bench.base + "/private", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: bench.card + "/roundclock.toml", withDestinationPath: bench.base + "/private")
        let run = bench.applier().run()
        #expect(run.outcome == .noCard)
        #expect(bench.read(bench.errorFile) == nil)
    }

    @Test func withoutASerialTheMachineIDNamesIt() throws {
        let bench = try CardBench()
        defer { bench.remove() }
        _ = bench.applier().run()
        #expect(bench.system("/etc/hostname") == "roundclock-cdef\n")
    }
}
