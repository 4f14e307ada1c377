import ArgumentParser
import RoundClockCore
import TOML

extension ParsableCommand {
    /// The error for a word that names none of the subcommands of the command before it
    /// (ArgumentParser would complain about the options that follow it instead): it names the
    /// word and the nearest subcommand, or lists them all when none is near. `nil` when the
    /// words name subcommands down to one without subcommands, or an option comes first.
    static func unknownSubcommandMessage(_ arguments: [String]) -> String? {
        unknownSubcommand(in: arguments.prefix { !$0.hasPrefix("-") })
    }

    /// The error for `help WORD...` when a WORD names no subcommand (ArgumentParser would
    /// print the top-level help and exit 0): the same line as for the words alone. `nil` for
    /// any other command line.
    static func unknownHelpTopicMessage(_ arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        return unknownSubcommand(in: arguments.dropFirst().filter { !$0.hasPrefix("-") })
    }

    /// Follows `words` down the subcommands; the first that names none of its command's
    /// subcommands (`help` too, at the top) is the error.
    private static func unknownSubcommand(in words: some Collection<String>) -> String? {
        var command: ParsableCommand.Type = self
        var path = [_commandName]
        for word in words {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }
            if let sub = subcommands.first(where: { $0._commandName == word }) {
                command = sub
                path.append(word)
                continue
            }
            var names = subcommands.map { $0._commandName }
            if path.count == 1 { names.append("help") }
            if names.contains(word) { return nil }
            let help = path.joined(separator: " ") + " --help"
            let shown = escapedControlCharacters(word)
            if let near = NearestName.of(word, among: names) {
                return "unknown subcommand '\(shown)'; did you mean '\(near)'? (see '\(help)')"
            }
            return "unknown subcommand '\(shown)'; the subcommands are \(names.joined(separator: ", ")) (see '\(help)')"
        }
        return nil
    }
}
