import ArgumentParser
import JSON
import RoundClockCore
import TOML

extension ParsableCommand {
    /// The error for the first option that the subcommand named by `arguments` does not
    /// have, with the nearest option it has: ArgumentParser may blame another token first
    /// (`x.toml`, a bad program, in `programs --confg x.toml`). A subcommand that takes
    /// unknown words as text (`render -1:05`) is checked for `--word` tokens only. `nil` when
    /// every option is known.
    static func unknownOptionMessage(_ arguments: [String]) -> String? {
        guard let tool = try? JSONParser(maxBytes: 1 << 24, maxDepth: 64).parse(_dumpHelp()),
              var command = tool["command"] else { return nil }
        var path = [_commandName]
        var rest = arguments[...]
        while let word = rest.first, let sub = elements(command["subcommands"]).first(where: { $0["commandName"]?.string == word }) {
            command = sub
            path.append(word)
            rest = rest.dropFirst()
        }
        let definitions = elements(command["arguments"])
        let takesText = definitions.contains { $0["parsingStrategy"]?.string == "allUnrecognized" }
        var known = CommandOptions(["--help", "-h", "--version", "--experimental-dump-help", "--generate-completion-script"])
        for definition in definitions where definition["kind"]?.string != "positional" {
            let names = elements(definition["names"]).compactMap(CommandOptions.spelling)
            known.add(names, takesValue: definition["kind"]?.string == "option")
        }
        guard let typed = known.firstUnknown(in: Array(rest), longOnly: takesText) else { return nil }
        let help = path.joined(separator: " ") + " --help"
        let shown = escapedControlCharacters(typed)
        if let near = NearestName.of(typed, among: known.longNames) {
            return "unknown option '\(shown)'; did you mean '\(near)'? (see '\(help)')"
        }
        return "unknown option '\(shown)' (see '\(help)')"
    }

    private static func elements(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items) = value { return items }
        return []
    }
}

/// The options a command has, as they are typed (`--config`, `-h`), and which take a value.
struct CommandOptions {
    private(set) var spellings: Set<String> = []
    private var takingValue: Set<String> = []

    init(_ builtIn: [String]) { spellings = Set(builtIn) }

    var longNames: [String] { spellings.filter { $0.hasPrefix("--") }.sorted() }

    mutating func add(_ names: [String], takesValue: Bool) {
        spellings.formUnion(names)
        if takesValue { takingValue.formUnion(names) }
    }

    /// `--name`, `-n` or `-name`, from a name of ArgumentParser's tool description.
    static func spelling(_ name: JSONValue) -> String? {
        guard let text = name["name"]?.string else { return nil }
        switch name["kind"]?.string {
        case "long": return "--" + text
        case "short", "longWithSingleDash": return "-" + text
        default: return nil
        }
    }

    /// The first token before `--` that is written as an option but is none of these: not a
    /// value (a token after an option that takes one), not `-` alone, not a negative number
    /// or time (`-1:05`), and not short flags run together (`-vh`); with `longOnly`, only
    /// `--word` tokens count.
    func firstUnknown(in tokens: [String], longOnly: Bool = false) -> String? {
        var valueNext = false
        for token in tokens {
            if valueNext {
                valueNext = false
                continue
            }
            if token == "--" { return nil }
            guard token.hasPrefix("-"), token.count > 1, !(token.dropFirst().first?.isNumber ?? false) else { continue }
            if longOnly, !(token.hasPrefix("--") && token.dropFirst(2).first?.isLetter == true) { continue }
            let name = token.split(separator: "=", maxSplits: 1).first.map(String.init) ?? token
            if spellings.contains(name) {
                valueNext = takingValue.contains(name) && !token.contains("=")
                continue
            }
            let cluster = token.hasPrefix("--") ? [] : token.dropFirst().map { "-\($0)" }
            if !cluster.isEmpty, cluster.allSatisfy(spellings.contains) { continue }
            return name
        }
        return nil
    }
}
