import ArgumentParser
import RoundClockConfig

/// `roundclock check-config [PATH]`: validates a configuration file and the board it names
/// without touching any hardware. Exit 0 with a summary, or 78 (EX_CONFIG) with one message.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a configuration file (and its board file) without touching hardware.",
        discussion: "Exits 0 and prints a summary, or exits 78 (EX_CONFIG) with one message naming the file, the line or key, the bad value and what is allowed.")

    @Argument(help: "The configuration file.")
    var path: String = Config.defaultPath

    func run() throws {
        do {
            let config = try Config.load(path)
            let board = try config.loadBoard()
            print(config.summary(board: board))
        } catch {
            printError(error.description)
            throw ExitCode(ConfigError.exitCode)
        }
    }
}
