#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing
@testable import RoundClockCore

/// Every time and program string, from an exhaustive grammar of edge tokens (signs, spaces,
/// empty fields, huge numbers, field widths, the limits ± 1) and from seeded random token
/// soup, goes through the parsers. None may trap; each gives a value within `TimeLimits`,
/// equal to what an independent reading of docs/programs.md's grammar says, or a one-line
/// error naming a token of the input.
@Suite struct ParserCorpusTests {
    static let fields = [
        "", "0", "00", "5", "05", "59", "60", "99", "+5", "-5", " 5", "5 ", "٥", "1_0", "1e3", "0x10", "nan", "inf",
        "1.5", ".5", "5.", "24", "1440", "1441", "86400", "86401", "31622400", "31622401", "9223372036854775807",
        "9223372036854775808", "153722867280912931", "99999999999999999999999999",
    ]
    static let twoDigitFields = ["00", "01", "59", "60", "5", "005", " 5", "+5", ""]

    /// Times: one field, two fields, and three with an edge-case tail.
    static let times: [String] = {
        var out = fields
        for a in fields { for b in fields { out.append(a + ":" + b) } }
        for a in fields { for b in twoDigitFields { for c in twoDigitFields { out.append(a + ":" + b + ":" + c) } } }
        return out + ["24:00:00", "24:00:01", "8784:00:00", "8784:00:01", "1:00:00:00", "1::00", ":", "::"]
    }()

    @Test func timesParseExactlyOrNotAtAll() {
        for text in Self.times {
            for maximum in [TimeLimits.maximumPhase, TimeLimits.maximumRun] {
                let expected = Self.oracle(text, secondsOnly: false).flatMap { $0 <= maximum ? $0 : nil }
                #expect(TimeText.parse(text, atMost: maximum) == expected, "\"\(text)\" at most \(maximum.clockNotation)")
                let seconds = Self.oracle(text, secondsOnly: true).flatMap { $0 <= maximum ? $0 : nil }
                #expect(TimeText.seconds(text, atMost: maximum) == seconds, "\"\(text)\" as seconds")
            }
            if let time = TimeText.timeOfDay(text, withSeconds: true) {
                #expect(time >= .zero && time < .seconds(86_400), "\"\(text)\"")
                #expect(text.utf8.count == 5 || text.utf8.count == 8, "two digits a field: \"\(text)\"")
            }
        }
    }

    @Test func programSpecsGiveBoundedProgramsOrOneLineErrors() {
        for time in Self.times {
            let number = time.contains(":") ? "3" : time
            for spec in ["countdown:\(time)", "emom:\(number)", "amrap:\(number)", "fortime:\(number)", "\(number) x 1:00",
                         "3 x \(time)", "3 x 1:00/\(time)", "3 x 24:00:00, prep \(time)", "3 x 24:00:00, warn \(time)",
                         "99 x \(time)/\(time), prep \(time), warn \(time)"] {
                Self.checkSpec(spec)
            }
        }
    }

    @Test func eventListsGiveBoundedPressesOrOneLineErrors() {
        for time in Self.times {
            for list in ["\(time):start", "1:stop:\(time)", "\(time):mode:\(time)"] {
                Self.checkEvents(list)
            }
        }
    }

    /// Random token soup, replayable: the seed is printed; `ROUNDCLOCK_SEED=N` replays it.
    @Test func randomTokenSoup() {
        let seed = Self.seed()
        print("ParserCorpusTests.randomTokenSoup seed \(seed) (replay: ROUNDCLOCK_SEED=\(seed) swift test --filter randomTokenSoup)")
        var random = SplitMix64(seed: seed)
        let tokens = ["0", "1", "5", "9", "59", "60", "99", "100", "1440", "86400", "9999999999", "153722867280912931",
                      ":", ":", ":", ".", "+", "-", " ", "  ", ",", "/", "x", "×", "prep", "warn", "countdown", "emom",
                      "amrap", "fortime", "boxing", "start", "stop", "mode", "\t", "٣", "é", "\u{0}", "e"]
        for _ in 0..<4000 {
            let count = Int.random(in: 1...10, using: &random)
            let text = (0..<count).map { _ in tokens.randomElement(using: &random)! }.joined()
            _ = TimeText.parse(text, atMost: TimeLimits.maximumRun)
            #expect(TimeText.parse(text, atMost: TimeLimits.maximumRun) == Self.oracle(text, secondsOnly: false).flatMap { $0 <= TimeLimits.maximumRun ? $0 : nil },
                    "seed \(seed): \"\(text)\"")
            _ = TimeText.timeOfDay(text, withSeconds: true)
            Self.checkSpec(text, seed: seed)
            Self.checkEvents(text, seed: seed)
        }
    }

    // MARK: Checks

    static func checkSpec(_ spec: String, seed: UInt64? = nil) {
        let context = seed.map { "seed \($0): " } ?? ""
        do {
            let program = try ProgramSpec.parse(spec)
            guard program.kind == .intervals else { return }
            #expect(program.phases.count <= TimeLimits.maximumPhases, "\(context)\(spec)")
            #expect(program.phases.allSatisfy { $0.length.map { $0 > .zero && $0 <= TimeLimits.maximumPhase } ?? true }, "\(context)\(spec)")
            #expect(program.total.map { $0 <= TimeLimits.maximumProgram } ?? true, "\(context)\(spec)")
            #expect((1...TimeLimits.maximumRounds).contains(program.rounds), "\(context)\(spec)")
            #expect(program.warning.map { $0 > .zero && $0 <= TimeLimits.maximumPhase } ?? true, "\(context)\(spec)")
        } catch {
            oneLine(error.description, naming: error.token, in: spec, context)
        }
    }

    static func checkEvents(_ list: String, seed: UInt64? = nil) {
        let context = seed.map { "seed \($0): " } ?? ""
        do {
            for press in try ScriptedPress.parseList(list) {
                #expect(press.at >= .zero && press.at <= TimeLimits.maximumRun, "\(context)\(list)")
                #expect(press.hold > .zero && press.at + press.hold <= TimeLimits.maximumRun + ScriptedPress.defaultHold, "\(context)\(list)")
            }
        } catch {
            oneLine(error.description, naming: error.token, in: list, context)
        }
    }

    /// One line (a newline in the input is not; no such input here), and every word of
    /// the token appears in the input.
    static func oneLine(_ message: String, naming token: String, in input: String, _ context: String) {
        #expect(!message.contains("\n") || input.contains("\n"), "\(context)\(message)")
        for word in token.split(whereSeparator: \.isWhitespace) {
            #expect(input.contains(word), "\(context)token \"\(token)\" of \"\(input)\"")
        }
    }

    // MARK: Oracle

    /// The grammar of docs/programs.md read independently: `M:SS`, `H:MM:SS` (fields after
    /// the first exactly two digits below 60) or decimal seconds with up to 9 decimals, ASCII
    /// digits only. `nil` if malformed; huge values come back huge (never trap: Int128, capped).
    static func oracle(_ text: String, secondsOnly: Bool) -> Duration? {
        let ascii = Set("0123456789")
        func digits(_ s: Substring) -> Int128? {
            guard !s.isEmpty, s.allSatisfy({ ascii.contains($0) }) else { return nil }
            let significant = s.drop { $0 == "0" }
            return significant.count > 20 ? Int128(10).power(20) : Int128(String(significant)) ?? 0
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var seconds: Int128 = 0
        var nanoseconds: Int128 = 0
        if parts.count == 1 {
            let halves = text.split(separator: ".", omittingEmptySubsequences: false)
            guard halves.count <= 2, let whole = digits(halves[0]) else { return nil }
            seconds = whole
            if halves.count == 2 {
                guard halves[1].count <= 9, let fraction = digits(halves[1]) else { return nil }
                nanoseconds = fraction * Int128(10).power(9 - halves[1].count)
            }
        } else {
            guard !secondsOnly, parts.count <= 3, let first = digits(parts[0]) else { return nil }
            seconds = first
            for field in parts.dropFirst() {
                guard field.count == 2, let n = digits(field), n < 60 else { return nil }
                seconds = seconds * 60 + n
            }
        }
        let cap: Int128 = 1_000_000_000 // 31 years, far above the limits checked here: stands for "too long"
        return .nanoseconds(Int64(min(seconds, cap) * 1_000_000_000 + nanoseconds))
    }

    static func seed() -> UInt64 {
        if let text = getenv("ROUNDCLOCK_SEED").map({ String(cString: $0) }), let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0...UInt64.max)
    }
}

extension Int128 {
    func power(_ exponent: Int) -> Int128 { (0..<exponent).reduce(1) { value, _ in value * self } }
}
