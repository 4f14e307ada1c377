extension Program {
    /// The phase plan in one line, e.g. `prep 0:10, 12 × 3:00 work / 1:00 rest, warn 0:10`.
    public var plan: String {
        guard kind == .intervals else { return "wall clock HH:MM (24 h), colon blinking at 1 Hz" }
        var parts: [String] = []
        if let prep = phases.first(where: { $0.kind == .prep }), let length = prep.length {
            parts.append("prep \(length.clockNotation)")
        }
        let timed = phases.filter { $0.counting != .overtime }
        let work = timed.filter { $0.kind == .work }
        let rest = timed.filter { $0.kind == .rest }
        if phases.contains(where: { $0.label?.contains(where: \.isLetter) == true && $0.counting != .overtime }) {
            parts.append(structuredPlan)
        } else if let first = work.first, work.allSatisfy({ $0.length == first.length && $0.counting == first.counting }),
           rest.allSatisfy({ $0.length == rest.first?.length }) {
            var text = "\(work.count) × \(Self.length(first)) work"
            if let r = rest.first?.length { text += " / \(r.clockNotation) rest" }
            parts.append(text)
        } else {
            parts.append(timed.filter { $0.kind != .prep }.map { "\($0.kind.rawValue) \(Self.length($0))" }.joined(separator: ", "))
        }
        if let warning { parts.append("warn \(warning.clockNotation)") }
        if let signal = phases.first(where: { $0.halfwaySignal != nil })?.halfwaySignal { parts.append("\(signal.rawValue) at half time") }
        if let countdownBeeps { parts.append("\(countdownBeeps) countdown beeps") }
        if countsRounds { parts.append("MODE counts rounds") }
        if hasOvertime { parts.append("then overtime +M:SS") }
        return parts.joined(separator: ", ")
    }

    /// `47:10`, `20:10+` with overtime, or `open-ended` when the last phase has no end.
    public var totalDescription: String {
        guard kind == .intervals else { return "-" }
        if hasOvertime, let cap = starts.last { return cap.clockNotation + "+" }
        return total.map(\.clockNotation) ?? "open-ended"
    }

    private static func length(_ phase: Phase) -> String {
        switch (phase.length, phase.counting) {
        case (nil, _): return "open-ended count-up"
        case (let l?, .up): return "\(l.clockNotation) count-up"
        case (let l?, _): return l.clockNotation
        }
    }

    /// `3 sets × 1 round of WALL 1:00, SDHP 1:00, ... / set rest 1:00`: the first round of
    /// the first set, with the rests after it.
    private var structuredPlan: String {
        let body = phases.filter { $0.kind != .prep && $0.counting != .overtime }
        let firstRound = body.prefix { $0.round == 1 && $0.set == body.first?.set && $0.label != nil }
        var text = (sets > 1 ? "\(sets) sets × " : "") + "\(rounds) × ("
            + firstRound.map { "\($0.label ?? $0.kind.rawValue) \(Self.length($0))" }.joined(separator: ", ") + ")"
        if let roundRest = body.first(where: { $0.kind == .rest && $0.label == nil && $0.round < rounds })?.length {
            text += " / \(roundRest.clockNotation) rest"
        }
        if sets > 1, let setRest = body.last(where: { $0.kind == .rest && $0.label == nil && $0.round == rounds })?.length {
            text += ", \(setRest.clockNotation) rest between sets"
        }
        return text
    }
}
