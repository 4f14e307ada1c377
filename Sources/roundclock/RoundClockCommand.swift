import ArgumentParser

@main
struct RoundClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundclock",
        abstract: "A drift-free gym round clock for HT16K33 LED panels and GPIO buttons.",
        subcommands: [Simulate.self, Run.self, Programs.self, Render.self, Probe.self, TestDisplay.self, CheckConfig.self, Bench.self],
        defaultSubcommand: nil
    )

    /// Like ArgumentParser's `main`, except that a usage or run error is one line on
    /// stderr ("roundclock: error: ..." naming the bad token), not the message followed by
    /// the usage block; `--help` and `help` print in full as usual.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            if error is ExitCode || exitCode(for: error) == .success { exit(withError: error) }
            let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: true)
            let message = lines.first ?? ""
            let text = message.hasPrefix("Error: ") ? "error: " + message.dropFirst("Error: ".count) : message[...]
            // ArgumentParser's last line "  See 'roundclock simulate --help' for more information."
            let help = lines.last { $0.contains("See '") }?.split(separator: "'").dropFirst().first
            printError(text + (help.map { " (see '\($0)')" } ?? ""))
            exit(withError: ExitCode(exitCode(for: error).rawValue))
        }
    }
}
