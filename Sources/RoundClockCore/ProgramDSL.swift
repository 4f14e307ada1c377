/// The one-line program language:
///
///     ROUNDS x WORK[/REST][, prep TIME][, warn TIME]
///
/// e.g. `10 x 0:45/0:15, prep 0:10, warn 0:05` or `3 x 5:00`. Times are `M:SS`,
/// `H:MM:SS` or plain seconds. Rest, prep and warning default to none; no rest
/// follows the last round.
enum ProgramDSL {
    static func parse(_ text: String, spec: String) throws(SpecError) -> Program {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmed)
        func fail(_ token: String, _ expected: String) -> SpecError {
            SpecError(spec: spec, token: token, expected: expected)
        }
        // ROUNDS x WORK[/REST]
        let words = tokens(items[0])
        guard let roundsWord = words.first else { throw fail(items[0], "ROUNDS x WORK, e.g. \"3 x 5:00\"") }
        guard WholeNumber.isDigits(roundsWord) else {
            throw fail(roundsWord, "a number of rounds, then x and the work time, e.g. \"10 x 0:45/0:15\", or a preset (\(Presets.names.joined(separator: ", ")))")
        }
        guard let count = WholeNumber.parse(roundsWord, atMost: Int64(TimeLimits.maximumRounds)), count >= 1 else {
            throw fail(roundsWord, "a number of rounds from 1 to \(TimeLimits.maximumRounds)")
        }
        let rounds = Int(count)
        guard words.count >= 2, ["x", "X", "×"].contains(words[1]) else { throw fail(words.count >= 2 ? words[1] : roundsWord, "\"x\" after the number of rounds, e.g. \"\(rounds) x 3:00\"") }
        guard words.count >= 3 else { throw fail(roundsWord + " " + words[1], "a work time after \"x\", e.g. \"\(rounds) x 3:00\"") }
        let work = try time(words[2], "a work time M:SS, e.g. 3:00", fail)
        var rest: Duration?
        if words.count > 3 {
            guard words[3] == "/", words.count >= 5 else { throw fail(words[3], "\"/REST\" after the work time, or a comma") }
            rest = try time(words[4], "a rest time M:SS after \"/\", e.g. 1:00", fail)
            guard words.count == 5 else { throw fail(words[5], "a comma before the next item") }
        }

        // , prep TIME / , warn TIME
        var prep: Duration?
        var warning: Duration?
        for item in items.dropFirst() {
            let parts = item.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let key = parts.first else { throw fail(item, "an item after the comma: \"prep M:SS\" or \"warn M:SS\"") }
            guard parts.count == 2 else {
                throw fail(parts.count > 2 ? parts[2] : item, "one time after \"\(key)\", e.g. \"\(key) 0:10\"")
            }
            let value = try time(parts[1], "a time M:SS after \"\(key)\", e.g. 0:10", fail)
            switch key.lowercased() {
            case "prep":
                guard prep == nil else { throw fail(item, "\"prep\" at most once") }
                prep = value
            case "warn", "warning":
                guard warning == nil else { throw fail(item, "\"warn\" at most once") }
                guard value < work else { throw fail(parts[1], "a warning shorter than the work time \(work.clockNotation)") }
                warning = value
            default:
                throw fail(key, "\"prep\" or \"warn\"")
            }
        }
        do {
            return try Program.rounds(
                name: text, label: "CUST", prep: prep, rounds: rounds, work: work,
                rest: rest, warning: warning)
        } catch {
            throw fail(text, "a valid program: \(error.problem)")
        }
    }

    private static func time(_ word: String, _ expected: String, _ fail: (String, String) -> SpecError) throws(SpecError) -> Duration {
        if let value = TimeText.parse(word, atMost: TimeLimits.maximumPhase), value > .zero { return value }
        if TimeText.isTooLong(word, atMost: TimeLimits.maximumPhase) {
            throw fail(word, "a time of at most \(TimeLimits.maximumPhase.clockNotation)")
        }
        if let over = TimeText.overflowingField(word) {
            throw fail(word, expected + "; \(over.field) run 00–59, so \(word) is written \(over.carried.clockNotation)")
        }
        throw fail(word, expected + " (longer than 0:00)")
    }
}

extension ProgramDSL {
    /// Splits `10x0:45/0:15` into `10`, `x`, `0:45`, `/`, `0:15`: runs of digits, `:`
    /// and `.`; runs of other characters; `/` on its own; white space separates.
    static func tokens(_ text: String) -> [String] {
        enum Class { case number, slash, other }
        func classOf(_ c: Character) -> Class {
            c.isASCIIDigit || c == ":" || c == "." ? .number : c == "/" ? .slash : .other
        }
        var tokens: [String] = []
        var current = ""
        var currentClass: Class?
        for c in text {
            if c.isWhitespace { if !current.isEmpty { tokens.append(current) }; current = ""; currentClass = nil; continue }
            let k = classOf(c)
            if k != currentClass || k == .slash, !current.isEmpty { tokens.append(current); current = "" }
            current.append(c)
            currentClass = k
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}
