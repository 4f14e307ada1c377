/// Turns the text a user gives (`--program`, MODE catalog, config) into a `Program`:
/// a preset name with its `:ARG`, or a one-line DSL such as
/// `10 x 0:45/0:15, prep 0:10, warn 0:05`.
public enum ProgramSpec {
    /// `names`: the other programs' names (the config's), which an unknown name's "did you
    /// mean" hint considers with the presets'.
    public static func parse(_ spec: String, alsoNamed names: [String] = []) throws(SpecError) -> Program {
        let text = spec.trimmed
        guard !text.isEmpty else {
            throw SpecError(spec: spec, token: "", expected: expectedProgram)
        }
        if let first = text.first, first.isLetter, !text.contains(",") {
            return try preset(text, spec: spec, names: names)
        }
        return try ProgramDSL.parse(text, spec: spec)
    }

    /// What a spec that is neither a preset nor a program line should have been.
    static let expectedProgram = "a preset (\((Presets.names + Presets.moreNames).joined(separator: ", "))) or a line like \"10 x 0:45/0:15, prep 0:10, warn 0:05\""

    private static func preset(_ text: String, spec: String, names: [String]) throws(SpecError) -> Program {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0].lowercased()
        let args = Array(parts.dropFirst())
        func noArgs() throws(SpecError) {
            guard args.isEmpty else { throw SpecError(spec: spec, token: ":" + args.joined(separator: ":"), expected: "no argument after '\(name)'") }
        }
        func minutes(default value: Int, atMost limit: Int) throws(SpecError) -> Int {
            let expected = "a whole number of minutes from 1 to \(limit), e.g. \(name):\(value)"
            guard args.count <= 1 else { throw SpecError(spec: spec, token: args.joined(separator: ":"), expected: "one " + expected) }
            guard let arg = args.first else { return value }
            guard let n = WholeNumber.parse(arg, atMost: Int64(limit)) else { throw SpecError(spec: spec, token: arg, expected: expected) }
            return Int(n)
        }
        do {
            switch name {
            case "boxing": try noArgs(); return Presets.boxing
            case "mma": try noArgs(); return Presets.mma
            case "muaythai": try noArgs(); return Presets.muaythai
            case "tabata": try noArgs(); return Presets.tabata
            case "stopwatch": try noArgs(); return Presets.stopwatch
            case "clock": try noArgs(); return .wallClock
            case "fgb": try noArgs(); return Presets.fgb
            case "bjj": try noArgs(); return Presets.bjj
            case "deathby": return try Presets.deathBy(minutes: minutes(default: 20, atMost: TimeLimits.maximumRounds))
            case "emom": return try Presets.emom(minutes: minutes(default: 10, atMost: TimeLimits.maximumRounds))
            case "amrap": return try Presets.amrap(minutes: minutes(default: 20, atMost: Presets.maximumMinutes))
            case "fortime": return try Presets.forTime(minutes: minutes(default: 20, atMost: Presets.maximumMinutes))
            case "countdown":
                let arg = args.joined(separator: ":")
                guard args.count == 2, let length = TimeText.parse(arg, atMost: TimeLimits.maximumPhase) else {
                    throw SpecError(spec: spec, token: arg.isEmpty ? name : arg,
                                    expected: "a length M:SS up to \(Presets.maximumMinutes):00 after 'countdown:', e.g. countdown:5:00")
                }
                return try Presets.countdown(length)
            default:
                throw SpecError(spec: spec, token: name, expected: expectedProgram,
                                suggestion: NearestName.of(name, among: Presets.reservedNames + names))
            }
        } catch let error as SpecError {
            throw error
        } catch let error as ProgramError {
            throw SpecError(spec: spec, token: text, expected: "a valid program: \(error.problem)")
        } catch {
            throw SpecError(spec: spec, token: text, expected: "a valid program")
        }
    }
}

/// A program spec that could not be read: quotes the offending token and says what
/// was expected there.
public struct SpecError: Error, Sendable, Hashable, CustomStringConvertible {
    public var spec: String
    public var token: String
    public var expected: String
    /// The name the spec most likely meant (an unknown name close to a known one).
    public var suggestion: String?
    public var description: String {
        "bad program \"\(spec)\": \"\(token)\" — expected \(expected)" + (suggestion.map { "; did you mean \"\($0)\"?" } ?? "")
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    /// Without leading and trailing white space (spaces, tabs, line breaks): the one trim
    /// helper, for program specs, config values, panel texts and `/proc` lines.
    public var trimmed: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
