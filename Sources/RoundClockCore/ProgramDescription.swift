extension Program {
    /// The phase plan in one line, e.g. `prep 0:10, 12 × 3:00 work / 1:00 rest, warn 0:10`.
    public var plan: String {
        guard kind == .intervals else { return "wall clock HH:MM (24 h), colon blinking at 1 Hz" }
        var parts: [String] = []
        if let prep = phases.first(where: { $0.kind == .prep }), let length = prep.length {
            parts.append("prep \(length.clockNotation)")
        }
        let work = phases.filter { $0.kind == .work }
        let rest = phases.filter { $0.kind == .rest }
        func length(_ phase: Phase) -> String {
            switch (phase.length, phase.counting) {
            case (nil, _): return "open-ended count-up"
            case (let l?, .up): return "\(l.clockNotation) count-up"
            case (let l?, .down): return l.clockNotation
            }
        }
        if let first = work.first, work.allSatisfy({ $0 == Phase(.work, length: first.length, counting: first.counting, round: $0.round) }),
           rest.allSatisfy({ $0.length == rest.first?.length }) {
            var text = "\(work.count) × \(length(first)) work"
            if let r = rest.first?.length { text += " / \(r.clockNotation) rest" }
            parts.append(text)
        } else {
            parts.append(phases.filter { $0.kind != .prep }.map { "\($0.kind.rawValue) \(length($0))" }.joined(separator: ", "))
        }
        if let warning { parts.append("warn \(warning.clockNotation)") }
        return parts.joined(separator: ", ")
    }

    /// `47:10`, or `open-ended` when the last phase has no end.
    public var totalDescription: String {
        guard kind == .intervals else { return "-" }
        return total.map(\.clockNotation) ?? "open-ended"
    }
}
