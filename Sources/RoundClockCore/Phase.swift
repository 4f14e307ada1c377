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
}

/// One step of a program: a prep, work or rest period.
public struct Phase: Sendable, Hashable {
    public var kind: PhaseKind
    /// Fixed length; for a count-up phase this is its cap. `nil` only for an
    /// open-ended count-up phase (a stopwatch), which must be the last phase.
    public var length: Duration?
    public var counting: Counting
    /// The round this phase belongs to: 0 for prep, 1... for work and the rest after it.
    public var round: Int

    public init(_ kind: PhaseKind, length: Duration?, counting: Counting = .down, round: Int) {
        self.kind = kind
        self.length = length
        self.counting = counting
        self.round = round
    }
}
