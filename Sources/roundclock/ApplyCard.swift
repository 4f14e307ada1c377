import ArgumentParser
import CardSetup
import RoundClockConfig

/// `roundclock apply-card`: the card's `roundclock.toml` applied at boot by
/// `roundclock-card.service` (docs/install.md "The card's file").
struct ApplyCard: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply-card",
        abstract: "Apply the SD card's roundclock.toml: clock settings, host name, time zone, Wi-Fi.",
        discussion: """
        Run at boot as root by roundclock-card.service, before the clock, the gateway and the network. \
        The file (roundclock.toml or roundclock.toml.txt on the card's FAT partition; a byte order mark \
        and CRLF line ends are fine) is checked as check-config checks a configuration file. Only a file \
        that passes is applied: its clock settings become /etc/roundclock/config.toml, [system] sets the \
        host name and the time zone, [wifi] becomes a NetworkManager connection, and the Wi-Fi passphrase \
        is then removed from the card. A file applied before and unchanged is not applied again. A file \
        that fails changes nothing: the error goes to the journal and to --error-file, and the clock shows \
        it on its panels and the phone page. Without a [system] hostname, the image's host name \
        "roundclock" becomes one unique to the Pi (roundclock-XXXX, from its serial number). Exits 0, \
        or 78 (EX_CONFIG) for a refused file, or 1 when a file could not be written.
        """)

    @Option(name: .customLong("card"), help: "A directory the card's FAT partition is mounted at; repeat for fallbacks (default: /boot/firmware, then /boot).")
    var cardDirectories: [String] = []

    @Option(help: "The root of the system written to (default: /, which also sets the kernel's host name).")
    var root: String = "/"

    @Option(help: "Where the applied file is recorded.")
    var stateDir: String = "/var/lib/roundclock-card"

    @Option(help: "Where a refusal is kept for the clock to show.")
    var errorFile: String = ApplyCard.defaultErrorFile

    @Option(help: "The Pi's serial number, for the default host name.")
    var serialFile: String = "/sys/firmware/devicetree/base/serial-number"

    static let defaultErrorFile = "/run/roundclock-card/error"

    func run() throws {
        let system = SystemFiles(root: root)
        var applier = CardApplier { text, file throws(ConfigError) in
            // Relative paths in the file are read as they will be: from /etc/roundclock.
            let config = try Config.parse(text, file: file)
            _ = try CheckConfig.check(config, devices: false)
            return config
        }
        if !cardDirectories.isEmpty { applier.cardDirectories = cardDirectories }
        applier.system = system
        applier.stateDirectory = stateDir
        applier.errorFile = errorFile
        applier.serialFile = serialFile
        let (outcome, log, failures) = applier.run()
        for line in log { print("apply-card: \(line)") }
        for line in failures { printError(line) }
        if case .refused(let error) = outcome {
            printError("\(error.description); nothing was changed: the clock runs on \(Config.defaultPath)")
            throw ExitCode(ConfigError.exitCode)
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}
