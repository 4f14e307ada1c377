import ArgumentParser
import RoundClockCore
import TOML

extension ParsableCommand {
    /// The error for a first argument that names none of this root command's subcommands
    /// (ArgumentParser would complain about the options that follow it instead): it names the
    /// word and the nearest subcommand, or lists them all when none is near. `nil` when the
    /// first argument is an option or a subcommand.
    static func unknownSubcommandMessage(_ arguments: [String]) -> String? {
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard names.count > 1, let word = arguments.first, !word.hasPrefix("-"), !names.contains(word) else { return nil }
        let root = _commandName
        let shown = escapedControlCharacters(word)
        if let near = NearestName.of(word, among: names) {
            return "unknown subcommand '\(shown)'; did you mean '\(near)'? (see '\(root) --help')"
        }
        return "unknown subcommand '\(shown)'; the subcommands are \(names.joined(separator: ", ")) (see '\(root) --help')"
    }
}
