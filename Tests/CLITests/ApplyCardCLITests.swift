import Foundation
import Testing

/// `roundclock apply-card` with the real checker, on a card directory and a system root in a
/// temporary directory; and the clock showing a refusal (`run --card-error`).
@Suite struct ApplyCardCLITests {
    struct Card {
        let base = temporaryFile("apply-card")
        var card: String { base + "/card" }
        var root: String { base + "/root" }

        init() throws {
            for directory in [card, root + "/etc", root + "/usr/share/zoneinfo/Europe"] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            try "TZif".write(toFile: root + "/usr/share/zoneinfo/Europe/Berlin", atomically: true, encoding: .utf8)
            try "roundclock\n".write(toFile: root + "/etc/hostname", atomically: true, encoding: .utf8)
            try "00000000c0ffee42".write(toFile: base + "/serial", atomically: true, encoding: .utf8)
        }

        var arguments: [String] {
            ["apply-card", "--card", card, "--root", root, "--state-dir", base + "/state", "--error-file", base + "/error",
             "--serial-file", base + "/serial"]
        }

        func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
    }

    @Test func aCardIsAppliedOnceThenLeftAlone() async throws {
        let card = try Card()
        defer { try? FileManager.default.removeItem(atPath: card.base) }
        try "program = \"tabata\"\r\n[remote]\r\npin = \"482913\"\r\n[system]\r\nhostname = \"gym-clock\"\r\ntimezone = \"Europe/Berlin\"\r\n"
            .write(toFile: card.card + "/roundclock.toml.txt", atomically: true, encoding: .utf8)
        let first = try await CLIRun.run(card.arguments)
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        #expect(first.stdout == "apply-card: \(card.card)/roundclock.toml.txt applied: clock settings to /etc/roundclock/config.toml; "
            + "host name gym-clock; time zone Europe/Berlin\n")
        let check = try await CLIRun.run(["check-config", card.root + "/etc/roundclock/config.toml"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("program: tabata"))
        #expect(check.stdout.contains("system (apply-card): host name gym-clock, time zone Europe/Berlin"))
        let second = try await CLIRun.run(card.arguments)
        #expect(second.status == 0)
        #expect(second.stdout == "apply-card: \(card.card)/roundclock.toml.txt: applied before and unchanged: nothing to apply\n")
    }

    /// The commented example the image puts on the card passes as it is, and its owner's
    /// edit (the PIN, a name, the Wi-Fi uncommented) is applied.
    @Test func theImagesExampleCardPassesAndApplies() async throws {
        let example = CheckConfigTests.repository.appendingPathComponent("image/roundclock.toml").path
        let check = try await CLIRun.run(["check-config", example])
        #expect(check.status == 0, "\(check.stderr)")
        let card = try Card()
        defer { try? FileManager.default.removeItem(atPath: card.base) }
        let edited = try String(contentsOfFile: example, encoding: .utf8)
            .replacingOccurrences(of: "# pin = ", with: "pin = ").replacingOccurrences(of: "# hostname = ", with: "hostname = ")
            .replacingOccurrences(of: "# [wifi]", with: "[wifi]").replacingOccurrences(of: "# ssid = ", with: "ssid = ")
            .replacingOccurrences(of: "# passphrase = ", with: "passphrase = ")
        try edited.write(toFile: card.card + "/roundclock.toml", atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(card.arguments)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("host name ring-1; Wi-Fi \"GymFloor\"; Wi-Fi passphrase removed from the card"), "\(run.stdout)")
        #expect(card.read(card.root + "/etc/roundclock/config.toml")?.contains("pin = \"482913\"") == true)
    }

    @Test func aRefusedCardExits78WithOneLineAndLeavesItForTheClock() async throws {
        let card = try Card()
        defer { try? FileManager.default.removeItem(atPath: card.base) }
        try "program = \"boxing\"\n[brightness]\nday = 40\n".write(toFile: card.card + "/roundclock.toml", atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(card.arguments)
        #expect(run.status == 78)
        let message = "\(card.card)/roundclock.toml: line 3: brightness.day: 40 is out of range; allowed are 0 to 15"
        #expect(run.stderr == "roundclock: \(message); nothing was changed: the clock runs on /etc/roundclock/config.toml\n")
        #expect(card.read(card.base + "/error") == message + "\n")
        #expect(card.read(card.root + "/etc/roundclock/config.toml") == nil)
        // No name on the card: the image's default name becomes the Pi's own.
        #expect(card.read(card.root + "/etc/hostname") == "roundclock-ee42\n")
    }

    @Test func theClockShowsTheRefusalUntilTheFirstPress() async throws {
        let file = temporaryFile("card-error")
        try "/boot/firmware/roundclock.toml: line 7, column 1: not valid TOML: expected a key\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let frames = temporaryFile("card-frames")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["run", "--simulate", "--virtual", "--events", "2:start", "--until", "4",
                                        "--card-error", file, "--frames", frames])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: the card's settings were not taken: /boot/firmware/roundclock.toml: line 7"))
        let lines = try String(contentsOfFile: frames, encoding: .utf8).split(separator: "\n")
        let first = lines.prefix(3).joined(separator: "\n")
        #expect(first.contains("\"text\": \"ERR \"") && first.contains("\"text\": \"   7\"") && first.contains("\"text\": \"CARD\""))
        let afterStart = lines.filter { $0.contains("\"state\": \"running\"") }
        #expect(!afterStart.isEmpty && !afterStart.contains { $0.contains("CARD") || $0.contains("ERR") })
    }
}
