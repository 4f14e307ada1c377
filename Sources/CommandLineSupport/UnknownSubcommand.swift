import ArgumentParser
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
        if let near = nearest(to: word, among: names) {
            return "unknown subcommand '\(shown)'; did you mean '\(near)'? (see '\(root) --help')"
        }
        return "unknown subcommand '\(shown)'; the subcommands are \(names.joined(separator: ", ")) (see '\(root) --help')"
    }

    /// The name closest to `word` by edit distance, if it is at most 2 edits away and fewer
    /// than half of `word`'s letters change; the first such name on a tie.
    static func nearest(to word: String, among names: [String]) -> String? {
        let scored = names.map { (name: $0, distance: editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
              best.distance <= 2, best.distance * 2 < word.count else { return nil }
        return best.name
    }

    /// Levenshtein distance: insertions, deletions and substitutions of characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in stride(from: 1, through: a.count, by: 1) {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
