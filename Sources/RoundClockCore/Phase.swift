/// What a phase of a workout is for; shown on the phase panel.
public enum PhaseKind: String, Sendable, CaseIterable, Hashable {
    case prep, work, rest
}

/// Which way the time panel counts during a phase.
public enum Counting: String, Sendable, Hashable {
    /// Shows the remaining time, quantised up (ceiling of seconds).
    case down
    /// Shows the elapsed time in the phase, quantised down (floor of seconds).
    case up
    /// Overtime after a capped program (an offset, docs/design.md): `+M:SS`, the time since the
    /// cap, counting up (floor of seconds); only an open-ended last phase counts this way.
    case overtime
}

/// One step of a program: a prep, work or rest period.
public struct Phase: Sendable, Hashable {
    public var kind: PhaseKind
    /// Fixed length; for a count-up phase this is its cap. `nil` only for an
    /// open-ended count-up phase (a stopwatch), which must be the last phase.
    public var length: Duration?
    public var counting: Counting
    /// The round this phase belongs to: 0 for prep, 1... for work and the rest after it
    /// (in a program with sets: the round within its set).
    public var round: Int
    /// The set this phase belongs to, 1...; 0 for prep and in programs without sets.
    public var set: Int = 0
    /// The phase panel's text instead of `PREP`/`WORK`/`REST` (an interval's label such as
    /// `WALL`, at most 4 characters); `nil`: the kind's text.
    public var label: String?
    /// What a voice says at the phase's start signal (a structured program's interval, e.g.
    /// "wall balls"); `nil`: nothing of its own.
    public var callout: String?
    /// The signal at the phase's start: `start` for work phases unless a program says
    /// otherwise; `nil`: none.
    public var startSignal: Signal?
    /// The signal at half the phase's length (`halfway`, or `switch` in `bjj`); `nil`: none.
    public var halfwaySignal: Signal?

    public init(_ kind: PhaseKind, length: Duration?, counting: Counting = .down, round: Int) {
        self.kind = kind
        self.length = length
        self.counting = counting
        self.round = round
        self.startSignal = kind == .work ? .start : nil
    }
}
