/// One interval of a structured program (`[programs.NAME] intervals = [{label = "WALL",
/// time = "1:00"}, ...]`): a labelled work (or rest) period.
public struct Interval: Sendable, Hashable {
    /// The phase panel's text, 1 to 4 characters (checked against the 14-segment font by
    /// the config reader).
    public var label: String
    /// What a voice says at the interval's start, e.g. "wall balls"; `nil`: the label in
    /// lower case.
    public var callout: String?
    public var length: Duration
    public var counting: Counting
    public var kind: PhaseKind
    /// The signal at the interval's start; `start` for work, none for rest by default.
    public var signal: Signal?
    /// A `halfway` signal at half its length.
    public var halfway: Bool

    public init(label: String, length: Duration, counting: Counting = .down, kind: PhaseKind = .work,
                signal: Signal?? = nil, halfway: Bool = false, callout: String? = nil) {
        self.label = label
        self.callout = callout
        self.length = length
        self.counting = counting
        self.kind = kind
        self.signal = signal ?? (kind == .work ? .start : nil)
        self.halfway = halfway
    }
}

/// A structured program: a prep, then `sets` sets of `rounds` rounds of the intervals,
/// `roundRest` between rounds and `setRest` between sets (none after the last), and
/// optionally an overtime phase (`+M:SS`) after the last interval.
public struct IntervalPlan: Sendable, Hashable {
    public var prep: Duration?
    public var intervals: [Interval]
    public var rounds = 1
    public var roundRest: Duration?
    /// 1 means no sets: the round panel shows `rr.tt`; 2...9 shows `S-RR`.
    public var sets = 1
    public var setRest: Duration?
    public var warning: Duration?
    /// A `halfway` signal in every work interval.
    public var halfway = false
    public var countdownBeeps: Int?
    public var overtime = false
    /// MODE counts completed rounds while running (AMRAP).
    public var countsRounds = false

    public init(prep: Duration? = nil, intervals: [Interval]) {
        self.prep = prep
        self.intervals = intervals
    }

    /// The program, validated as every program is (phase lengths, at most
    /// `TimeLimits.maximumPhases` phases), plus the plan's own ranges.
    public func program(name: String, label: String) throws(ProgramError) -> Program {
        guard !intervals.isEmpty else { throw ProgramError(program: name, problem: "has no intervals") }
        guard (1...TimeLimits.maximumRounds).contains(rounds) else {
            throw ProgramError(program: name, problem: "has \(rounds) rounds; allowed are 1 to \(TimeLimits.maximumRounds)")
        }
        guard (1...TimeLimits.maximumSets).contains(sets) else {
            throw ProgramError(program: name, problem: "has \(sets) sets; allowed are 1 to \(TimeLimits.maximumSets)")
        }
        let phaseCount = (prep == nil ? 0 : 1) + sets * rounds * intervals.count
            + (roundRest == nil ? 0 : sets * (rounds - 1)) + (setRest == nil ? 0 : sets - 1) + (overtime ? 1 : 0)
        guard phaseCount <= TimeLimits.maximumPhases else {
            throw ProgramError(program: name, problem: "has \(phaseCount) phases; at most \(TimeLimits.maximumPhases) allowed")
        }
        return try Program(name: name, label: label, phases: phases(), warning: warning,
                           countdownBeeps: countdownBeeps, countsRounds: countsRounds)
    }

    /// The phase list; small enough to build (`program` checks the count first).
    func phases() -> [Phase] {
        var phases: [Phase] = []
        if let prep { phases.append(Phase(.prep, length: prep, round: 0)) }
        for set in 1...sets {
            let setNumber = sets > 1 ? set : 0
            for round in 1...rounds {
                for interval in intervals {
                    var phase = Phase(interval.kind, length: interval.length, counting: interval.counting, round: round)
                    phase.set = setNumber
                    phase.label = interval.label
                    phase.callout = interval.callout ?? interval.label.lowercased()
                    phase.startSignal = interval.signal
                    if interval.halfway || (halfway && interval.kind == .work) { phase.halfwaySignal = .halfway }
                    phases.append(phase)
                }
                if let roundRest, round < rounds {
                    var rest = Phase(.rest, length: roundRest, round: round)
                    rest.set = setNumber
                    phases.append(rest)
                }
            }
            if let setRest, set < sets {
                var rest = Phase(.rest, length: setRest, round: rounds)
                rest.set = setNumber
                phases.append(rest)
            }
        }
        if overtime, let last = phases.last { phases.append(Phase.overtime(after: last)) }
        return phases
    }
}

extension Phase {
    /// The open-ended phase after a capped one: `+M:SS` counting up on the time panel,
    /// `OVER` on the phase panel, `finish` sounding at the cap (its start).
    public static func overtime(after last: Phase) -> Phase {
        var phase = Phase(.work, length: nil, counting: .overtime, round: last.round)
        phase.set = last.set
        phase.label = "OVER"
        phase.startSignal = .finish
        return phase
    }
}
