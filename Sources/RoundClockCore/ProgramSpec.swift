/// Turns the text a user gives (`--program`, MODE catalog, config) into a `Program`:
/// a preset name with its `:ARG`, or a one-line DSL such as
/// `10 x 0:45/0:15, prep 0:10, warn 0:05`.
public enum ProgramSpec {
    public static func parse(_ spec: String) throws(SpecError) -> Program {
        let text = spec.trimmed
        guard !text.isEmpty else {
            throw SpecError(spec: spec, token: "", expected: "a preset (\(Presets.names.joined(separator: ", "))) or a line like \"10 x 0:45/0:15, prep 0:10, warn 0:05\"")
        }
        if let first = text.first, first.isLetter, !text.contains(",") {
            return try preset(text, spec: spec)
        }
        return try ProgramDSL.parse(text, spec: spec)
    }

    private static func preset(_ text: String, spec: String) throws(SpecError) -> Program {
        let parts = text.lowercased().split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        let args = Array(parts.dropFirst())
        func noArgs() throws(SpecError) {
            guard args.isEmpty else { throw SpecError(spec: spec, token: ":" + args.joined(separator: ":"), expected: "no argument after '\(name)'") }
        }
        func minutes(default value: Int) throws(SpecError) -> Int {
            guard args.count <= 1 else { throw SpecError(spec: spec, token: args.joined(separator: ":"), expected: "one whole number of minutes, e.g. \(name):\(value)") }
            guard let arg = args.first else { return value }
            guard let n = Int(arg) else { throw SpecError(spec: spec, token: arg, expected: "a whole number of minutes, e.g. \(name):\(value)") }
            return n
        }
        do {
            switch name {
            case "boxing": try noArgs(); return Presets.boxing
            case "mma": try noArgs(); return Presets.mma
            case "muaythai": try noArgs(); return Presets.muaythai
            case "tabata": try noArgs(); return Presets.tabata
            case "stopwatch": try noArgs(); return Presets.stopwatch
            case "clock": try noArgs(); return .wallClock
            case "emom": return try Presets.emom(minutes: minutes(default: 10))
            case "amrap": return try Presets.amrap(minutes: minutes(default: 20))
            case "fortime": return try Presets.forTime(minutes: minutes(default: 20))
            case "countdown":
                let arg = args.joined(separator: ":")
                guard args.count == 2, let length = TimeText.parse(arg) else {
                    throw SpecError(spec: spec, token: arg.isEmpty ? name : arg, expected: "a length M:SS after 'countdown:', e.g. countdown:5:00")
                }
                return try Presets.countdown(length)
            default:
                throw SpecError(spec: spec, token: name, expected: "a preset (\(Presets.names.joined(separator: ", "))) or a line like \"10 x 0:45/0:15, prep 0:10, warn 0:05\"")
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
    public var description: String {
        "bad program \"\(spec)\": \"\(token)\" — expected \(expected)"
    }
}

/// `M:SS`, `H:MM:SS` or plain seconds, as written in specs and on the command line.
public enum TimeText {
    /// Parses `M:SS` (seconds 00–59), `H:MM:SS`, or whole/decimal seconds (`45`, `2.5`).
    public static func parse(_ text: String) -> Duration? {
        let parts = text.trimmed.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 1 { return seconds(String(parts[0])) }
        guard parts.count <= 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        let numbers = parts.compactMap { Int64($0) }
        guard numbers.count == parts.count, numbers.dropFirst().allSatisfy({ $0 < 60 }),
              parts.dropFirst().allSatisfy({ $0.count == 2 }) else { return nil }
        let total = numbers.reduce(Int64(0)) { $0 * 60 + $1 }
        return .seconds(total)
    }

    /// Decimal seconds with up to 9 fractional digits, e.g. `12`, `0.25`.
    public static func seconds(_ text: String) -> Duration? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 12,
              parts[0].allSatisfy(\.isASCIIDigit), let whole = Int64(parts[0]) else { return nil }
        var nanos: Int64 = 0
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
            nanos = Int64(fraction + String(repeating: "0", count: 9 - fraction.count)) ?? 0
        }
        return .seconds(whole) + .nanoseconds(nanos)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    var trimmed: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
