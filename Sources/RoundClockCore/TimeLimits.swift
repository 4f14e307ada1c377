/// The longest times RoundClock accepts from anyone: program specs and the DSL, the
/// config, `--until` and `--events`, and (in the service) the state file. Every parser
/// range-checks against these, so no time a user types, a file holds or a clock returns
/// can reach arithmetic that overflows: the largest, `maximumElapsed`, is 100 years, well
/// inside `Duration` (Int128 attoseconds, about 5·10^12 years) and inside Int64
/// nanoseconds (292 years), the narrowest conversion a platform API takes.
public enum TimeLimits {
    /// Longest single phase (prep, work, rest), warning, `countdown:M:SS` and
    /// `amrap:M`/`fortime:M`: 24 h (docs/programs.md).
    public static let maximumPhase: Duration = .seconds(24 * 3600)

    /// Most rounds a program has: 99, what the two-digit round panel can show.
    public static let maximumRounds = 99

    /// Most phases a program has: a prep, then a work and a rest phase per round.
    public static let maximumPhases = 1 + 2 * maximumRounds

    /// Most sets a program with sets has: 9, the one digit the round panel gives the set
    /// (`S-RR`, docs/buttons-and-panels.md).
    public static let maximumSets = 9

    /// Most countdown beeps before a phase change (`countdown_beeps`): one a second for the
    /// last 10 s.
    public static let maximumCountdownBeeps = 10

    /// Longest timed program: `maximumPhases` phases of `maximumPhase` (199 days).
    /// A saved session of a timed program never runs longer than its program.
    public static let maximumProgram: Duration = maximumPhase * maximumPhases

    /// Latest instant, counted from the start of a run, at which `--until` may stop it or a
    /// scripted press (`--events` T plus HOLD) may happen: 366 days, longer than any
    /// timed program.
    public static let maximumRun: Duration = .seconds(366 * 86_400)

    /// Longest running time a session may have, for the open-ended stopwatch left running:
    /// 100 years. Also the bound for any elapsed time or clock reading read from a file.
    public static let maximumElapsed: Duration = .seconds(100 * 366 * 86_400)
}
