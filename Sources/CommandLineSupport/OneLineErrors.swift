import ArgumentParser
import TOML

extension AsyncParsableCommand {
    /// Like ArgumentParser's `main`, except that a usage or run error is one line handed to
    /// `printError` ("error: ..." naming the bad token), not the message followed by the
    /// usage block; `--help` and `help` print in full as usual. Exit statuses follow
    /// `ExitStatus` (docs/command-line.md).
    public static func mainWithOneLineErrors(printError: (String) -> Void) async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if let unknown = unknownHelpTopicMessage(arguments) {
                printError("error: " + unknown)
                exit(withError: ExitCode(ExitStatus.usage))
            }
            if error is ExitCode || exitCode(for: error) == .success { exit(withError: error) }
            if let unknown = unknownSubcommandMessage(arguments) ?? unknownOptionMessage(arguments) {
                printError("error: " + unknown)
                exit(withError: ExitCode(ExitStatus.usage))
            }
            // The message alone (no usage block), on one line whatever the user typed: a token
            // with a line break or another control character is shown escaped (`\n`), never cut.
            let message = escapedControlCharacters(self.message(for: error))
            let usage = fullMessage(for: error).hasPrefix("Error: ") ? "error: " : ""
            // ArgumentParser's last line "  See 'roundclock simulate --help' for more information."
            let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: true)
            let help = lines.last { $0.contains("See '") }?.split(separator: "'").dropFirst().first
            printError(usage + message + (help.map { " (see '\($0)')" } ?? ""))
            exit(withError: ExitCode(ExitStatus.code(for: exitCode(for: error).rawValue)))
        }
    }
}
