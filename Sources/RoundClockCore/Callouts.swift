/// What a voice says at a program's signal points, keyed to the same (offset, signal) the
/// render loop fires, so that each callout sounds with its signal:
///
/// - the start of a work round: "round three" (words, one to ninety nine), "last round" for
///   the last round of a program with more than one round; a one-round program says none;
/// - a phase with a callout of its own (a structured program's interval, e.g. "wall balls")
///   at its start, after the round's words;
/// - a warning: its length, "ten seconds", "one minute", "one minute thirty seconds";
/// - the end of a work phase followed by rest: "rest";
/// - the finish (or the cap of a program with overtime): "time".
public enum Callouts {
    public typealias Callout = (offset: Duration, signal: Signal, phrase: String)

    /// Every callout of `program`, in the order of its signal points.
    public static func plan(for program: Program) -> [Callout] {
        var out: [Callout] = []
        for point in program.signals {
            guard let phrase = phrase(at: point, program) else { continue }
            out.append((offset: point.offset, signal: point.signal, phrase: phrase))
        }
        return out
    }

    /// The finish says "time"; a phase's start signal (whichever signal a structured
    /// interval starts with) says its round and callout; other points say what `rules` says.
    private static func phrase(at point: SignalPoint, _ program: Program) -> String? {
        if point.signal == .finish { return "time" }
        if let start = phaseStart(point, program) { return start }
        return rules[point.signal]?(point, program)
    }

    /// What a signal says away from a phase's start; a signal not listed says nothing.
    private static let rules: [Signal: @Sendable (SignalPoint, Program) -> String?] = [
        .warning: { _, program in program.warning.flatMap(words) },
        .end: { point, program in phase(startingAt: point.offset, program)?.kind == .rest ? "rest" : nil },
    ]

    /// The round's words and the phase's own callout, when `point` is a phase's start signal.
    private static func phaseStart(_ point: SignalPoint, _ program: Program) -> String? {
        let index = program.phaseIndex(atElapsed: point.offset)
        guard index < program.phases.count, program.starts[index] == point.offset,
              program.phases[index].startSignal == point.signal else { return nil }
        let parts = [roundWords(ofPhase: index, program), program.phases[index].callout].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// "round N" or "last round" at the first work phase of a round; nil elsewhere and in a
    /// program of one round.
    private static func roundWords(ofPhase index: Int, _ program: Program) -> String? {
        let phase = program.phases[index]
        guard program.rounds > 1, phase.kind == .work, phase.round > 0 else { return nil }
        let earlierWork = program.phases[..<index].last { $0.kind == .work }
        if let earlierWork, earlierWork.round == phase.round, earlierWork.set == phase.set { return nil }
        if phase.round == program.rounds, phase.set == program.sets { return "last round" }
        return "round " + words(phase.round)
    }

    /// The phase that starts at `offset`, if one does.
    private static func phase(startingAt offset: Duration, _ program: Program) -> Phase? {
        let index = program.phaseIndex(atElapsed: offset)
        return index < program.phases.count && program.starts[index] == offset ? program.phases[index] : nil
    }

    /// A length in whole minutes and seconds: "ten seconds", "one minute thirty seconds";
    /// nil under a second.
    public static func words(_ length: Duration) -> String? {
        let seconds = Int(length.components.seconds)
        var parts: [String] = []
        if seconds >= 60 { parts.append(counted(seconds / 60, "minute")) }
        if seconds % 60 > 0 { parts.append(counted(seconds % 60, "second")) }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    private static func counted(_ count: Int, _ unit: String) -> String {
        words(count) + " " + unit + (count == 1 ? "" : "s")
    }

    private static let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                               "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                               "eighteen", "nineteen"]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// A number in English words from zero to ninety nine ("forty two"); digits above.
    public static func words(_ number: Int) -> String {
        guard number >= 0, number < 100 else { return String(number) }
        if number < 20 { return ones[number] }
        let unit = number % 10
        return unit == 0 ? tens[number / 10] : tens[number / 10] + " " + ones[unit]
    }
}
