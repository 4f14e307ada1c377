import TOML
import RoundClockCore
import SegmentDisplay

/// `[programs.NAME]`: a structured program (docs/programs.md, docs/configuration.md), either
/// `intervals` (with `prep`, `rounds`, `rest`, `sets`, `set_rest`, `warn`) or `base`, a
/// preset or program line, plus the options both take (`label`, `halfway`,
/// `countdown_beeps`, `overtime`, `count_rounds`).
enum StructuredProgram {
    static let signalNames = Signal.allCases.map(\.rawValue) + ["none"]

    static func read(name: String, _ table: inout TOMLReader) throws(ConfigError) -> Program {
        var label = "CUST"
        if let text = try table.string("label") { label = try phaseLabel(text, key: "label", table) }
        let halfway = try table.bool("halfway") ?? false
        let beeps = try table.int("countdown_beeps", in: 0...TimeLimits.maximumCountdownBeeps)
        let overtime = try table.bool("overtime") ?? false
        let countsRounds = try table.bool("count_rounds")
        let program: Program
        if let base = try table.string("base") {
            for key in ["intervals", "prep", "rounds", "rest", "sets", "set_rest", "warn"] where table.peek(key) != nil {
                throw table.fail(key, "not allowed with base; give either base (a preset or program line) or intervals")
            }
            program = try adapted(base, name: name, label: label, halfway: halfway, beeps: beeps, overtime: overtime,
                                  countsRounds: countsRounds, table)
        } else {
            var plan = IntervalPlan(intervals: try intervals(&table))
            plan.prep = try time("prep", table: &table)
            plan.rounds = try table.int("rounds", in: 1...TimeLimits.maximumRounds) ?? 1
            plan.roundRest = try time("rest", table: &table)
            plan.sets = try table.int("sets", in: 1...TimeLimits.maximumSets) ?? 1
            plan.setRest = try time("set_rest", table: &table)
            plan.warning = try time("warn", table: &table)
            plan.halfway = halfway
            plan.countdownBeeps = beeps
            plan.overtime = overtime
            plan.countsRounds = countsRounds ?? false
            do { program = try plan.program(name: name, label: label) } catch { throw table.fail("intervals", "the program \(error.problem)") }
        }
        try table.finish()
        return program
    }

    /// `intervals = [{label = "WALL", time = "1:00"}, ...]`.
    private static func intervals(_ table: inout TOMLReader) throws(ConfigError) -> [Interval] {
        guard table.peek("intervals") != nil else {
            throw table.fail("intervals", "missing; a structured program needs intervals = [{label = \"WORK\", time = \"1:00\"}, ...] or base = \"PRESET\"")
        }
        var out: [Interval] = []
        for var entry in try table.tables("intervals") {
            let label = try phaseLabel(try entry.requiredString("label"), key: "label", entry)
            guard let length = try time("time", table: &entry) else { throw entry.fail("time", "missing; it is required, e.g. time = \"1:00\"") }
            var interval = Interval(label: label, length: length)
            if let count = try entry.choice("count", ["down", "up"]) { interval.counting = count == "up" ? .up : .down }
            if let kind = try entry.choice("kind", ["work", "rest"]), kind == "rest" {
                interval.kind = .rest
                interval.signal = nil
            }
            if let name = try entry.choice("signal", signalNames) { interval.signal = Signal(rawValue: name) }
            interval.halfway = try entry.bool("halfway") ?? false
            if let say = try entry.string("say") {
                if let problem = sayProblem(say) { throw entry.fail("say", problem) }
                interval.callout = say
            }
            try entry.finish()
            out.append(interval)
        }
        guard !out.isEmpty else { throw table.fail("intervals", "empty; give at least one {label = \"WORK\", time = \"1:00\"}") }
        return out
    }

    /// Why `text` cannot be what the voice says at an interval's start, or nil: 1 to 64
    /// ASCII letters, digits, spaces, `-` or `'`, not starting or ending with a space.
    static func sayProblem(_ text: String) -> String? {
        let scalars = text.unicodeScalars
        let allowed = scalars.allSatisfy { s in
            (s.value >= 0x30 && s.value <= 0x39) || (s.value >= 0x41 && s.value <= 0x5A) || (s.value >= 0x61 && s.value <= 0x7A)
                || s == " " || s == "-" || s == "'"
        }
        guard allowed, (1...64).contains(scalars.count), scalars.first != " ", scalars.last != " " else {
            return "\(escapedBasicString(text)) is not a callout; use 1 to 64 ASCII letters, digits, spaces, '-' or \"'\", "
                + "e.g. \"wall balls\""
        }
        return nil
    }

    /// A label for the phase panel: 1 to 4 characters the 14-segment font can draw.
    static func phaseLabel(_ text: String, key: String, _ table: TOMLReader) throws(ConfigError) -> String {
        guard (1...4).contains(text.count), !text.contains(".") else {
            throw table.fail(key, "\(escapedBasicString(text)) is not a label; use 1 to 4 characters for the phase panel, e.g. \"WALL\"")
        }
        do { _ = try Frame(FaceBuilder.label(text), kind: .seg14x4) } catch {
            throw table.fail(key, "\(escapedBasicString(text)) cannot be shown on the phase panel (\(error)); use letters, digits, space, - or similar")
        }
        return text.uppercased()
    }

    /// A time `M:SS`, `H:MM:SS` or seconds, longer than 0:00 and at most 24 h.
    static func time(_ key: String, table: inout TOMLReader) throws(ConfigError) -> Duration? {
        guard let text = try table.string(key) else { return nil }
        guard let value = TimeText.parse(text, atMost: TimeLimits.maximumPhase), value > .zero else {
            throw table.fail(key, "\(escapedBasicString(text)) is not a usable time; use \"M:SS\", \"H:MM:SS\" or seconds, longer than 0:00 and at most \(TimeLimits.maximumPhase.clockNotation)")
        }
        return value
    }

    /// `base` with the options applied: halfway signals in its work phases, countdown
    /// beeps, round counting, an overtime phase after its last one.
    private static func adapted(_ base: String, name: String, label: String, halfway: Bool, beeps: Int?, overtime: Bool,
                                countsRounds: Bool?, _ table: TOMLReader) throws(ConfigError) -> Program {
        let program: Program
        do { program = try ProgramSpec.parse(base) } catch { throw table.fail("base", error.description) }
        guard program.kind == .intervals else { throw table.fail("base", "\"\(base)\" is the wall clock; a custom program needs timed phases") }
        var phases = program.phases
        if halfway {
            for index in phases.indices where phases[index].kind == .work && phases[index].halfwaySignal == nil {
                phases[index].halfwaySignal = .halfway
            }
        }
        if overtime {
            guard let last = phases.last, last.length != nil else {
                throw table.fail("overtime", "\"\(base)\" has no end to run over; overtime needs a program with a cap or an end")
            }
            phases.append(.overtime(after: last))
        }
        do {
            return try Program(name: name, label: label == "CUST" ? program.label : label, phases: phases, warning: program.warning,
                               countdownBeeps: beeps ?? program.countdownBeeps, countsRounds: countsRounds ?? program.countsRounds)
        } catch {
            throw table.fail("base", "the program \(error.problem)")
        }
    }
}
