extension Program {
    /// `rounds` rounds of `work` each followed by `rest` (none after the last round),
    /// optionally preceded by a prep phase. Validated.
    public static func rounds(
        name: String, label: String, prep: Duration?, rounds: Int, work: Duration,
        rest: Duration?, warning: Duration? = nil, counting: Counting = .down
    ) throws(ProgramError) -> Program {
        guard (1...99).contains(rounds) else {
            throw ProgramError(program: name, problem: "has \(rounds) rounds; allowed are 1 to 99")
        }
        let phases = roundPlan(prep: prep, rounds: rounds, work: work, rest: rest, counting: counting)
        return try Program(name: name, label: label, phases: phases, warning: warning)
    }

    static func roundPlan(prep: Duration?, rounds: Int, work: Duration, rest: Duration?, counting: Counting) -> [Phase] {
        var phases: [Phase] = []
        if let prep { phases.append(Phase(.prep, length: prep, round: 0)) }
        for round in 1...max(rounds, 1) {
            phases.append(Phase(.work, length: work, counting: counting, round: round))
            if let rest, round < rounds { phases.append(Phase(.rest, length: rest, round: round)) }
        }
        return phases
    }
}

/// The built-in programs, in the order the MODE button cycles through them.
public enum Presets {
    static let prep = Duration.seconds(10)

    /// A preset from constants known to be valid.
    private static func preset(
        _ name: String, _ label: String, prep: Duration? = Presets.prep, rounds: Int, work: Duration,
        rest: Duration? = nil, warning: Duration? = nil, counting: Counting = .down, countsRounds: Bool = false
    ) -> Program {
        Program(trusted: name, label: label,
                phases: Program.roundPlan(prep: prep, rounds: rounds, work: work, rest: rest, counting: counting),
                warning: warning, countsRounds: countsRounds)
    }

    /// Prep 0:10, 12 × 3:00 work / 1:00 rest, warning 0:10 before each work end.
    public static let boxing = preset("boxing", "BOX", rounds: 12, work: .seconds(180), rest: .seconds(60), warning: .seconds(10))
    /// Prep 0:10, 5 × 5:00 / 1:00, warning 0:10.
    public static let mma = preset("mma", "MMA", rounds: 5, work: .seconds(300), rest: .seconds(60), warning: .seconds(10))
    /// Prep 0:10, 5 × 3:00 / 2:00, warning 0:10.
    public static let muaythai = preset("muaythai", "MUAY", rounds: 5, work: .seconds(180), rest: .seconds(120), warning: .seconds(10))
    /// Prep 0:10, 8 × 0:20 / 0:10.
    public static let tabata = preset("tabata", "TABA", rounds: 8, work: .seconds(20), rest: .seconds(10))
    /// One open-ended work phase counting up, no prep.
    public static let stopwatch = Program(trusted: "stopwatch", label: "STPW", phases: [Phase(.work, length: nil, counting: .up, round: 1)], warning: nil)

    /// Prep 0:10, `minutes` × 1:00, no rest. 1 to 99 minutes.
    public static func emom(minutes: Int = 10) throws(ProgramError) -> Program {
        guard (1...TimeLimits.maximumRounds).contains(minutes) else {
            throw ProgramError(program: "emom:\(minutes)", problem: "asks for \(minutes) rounds; allowed are 1 to \(TimeLimits.maximumRounds)")
        }
        return preset("emom:\(minutes)", "EMOM", rounds: minutes, work: .seconds(60))
    }

    /// Prep 0:10, one work phase of `minutes` counting down; MODE counts completed rounds.
    public static func amrap(minutes: Int = 20) throws(ProgramError) -> Program {
        try checkMinutes(minutes, name: "amrap:\(minutes)")
        return preset("amrap:\(minutes)", "AMRP", rounds: 1, work: .seconds(60 * minutes), countsRounds: true)
    }

    /// Prep 0:10, one work phase counting up, capped at `minutes`.
    public static func forTime(minutes: Int = 20) throws(ProgramError) -> Program {
        try checkMinutes(minutes, name: "fortime:\(minutes)")
        return preset("fortime:\(minutes)", "FT", rounds: 1, work: .seconds(60 * minutes), counting: .up)
    }

    /// One work phase counting down, no prep.
    public static func countdown(_ length: Duration) throws(ProgramError) -> Program {
        let s = length.floorSeconds
        let name = "countdown:\(s / 60):\(s % 60 < 10 ? "0" : "")\(s % 60)"
        guard length > .zero, length <= TimeLimits.maximumPhase else {
            throw ProgramError(program: name, problem: "must be longer than 0:00 and at most \(maximumMinutes):00")
        }
        return preset(name, "CNTD", prep: nil, rounds: 1, work: length)
    }

    /// Longest single timed phase a preset argument may ask for, in minutes (24 h:
    /// `TimeLimits.maximumPhase`).
    public static let maximumMinutes = Int(TimeLimits.maximumPhase.floorSeconds / 60)

    static func checkMinutes(_ minutes: Int, name: String) throws(ProgramError) {
        guard (1...maximumMinutes).contains(minutes) else {
            throw ProgramError(program: name, problem: "asks for \(minutes) minutes; allowed are 1 to \(maximumMinutes)")
        }
    }

    /// Fight Gone Bad: prep 0:10, 3 sets of five 1:00 stations (wall balls, sumo deadlift
    /// high pulls, box jumps, push presses, rowing), 1:00 rest between sets.
    public static let fgb: Program = {
        let stations = [
            Interval(label: "WALL", length: .seconds(60), callout: "wall balls"),
            Interval(label: "SDHP", length: .seconds(60), callout: "sumo deadlift high pull"),
            Interval(label: "BOX", length: .seconds(60), callout: "box jumps"),
            Interval(label: "PUSH", length: .seconds(60), callout: "push press"),
            Interval(label: "ROW", length: .seconds(60), callout: "row"),
        ]
        var plan = IntervalPlan(prep: prep, intervals: stations)
        plan.sets = 3
        plan.setRest = .seconds(60)
        return Program(trusted: "fgb", label: "FGB", phases: plan.phases(), warning: nil)
    }()

    /// Brazilian jiu-jitsu rolls: prep 0:10, 6 × 6:00 / 1:00, `switch` at half of each roll
    /// (partners or positions change), warning 0:10.
    public static let bjj: Program = {
        var phases = Program.roundPlan(prep: prep, rounds: 6, work: .seconds(360), rest: .seconds(60), counting: .down)
        for index in phases.indices where phases[index].kind == .work { phases[index].halfwaySignal = .switch }
        return Program(trusted: "bjj", label: "BJJ", phases: phases, warning: .seconds(10))
    }()

    /// "Death by ...": an EMOM of up to `minutes` one-minute rounds whose minute is the rep
    /// target: the phase panel shows it (`   1`, `   2`, ... `  12`) and the round panel
    /// ` 3.20`. The athlete stops (STOP) at the first minute not completed.
    public static func deathBy(minutes: Int = 20) throws(ProgramError) -> Program {
        guard (1...TimeLimits.maximumRounds).contains(minutes) else {
            throw ProgramError(program: "deathby:\(minutes)", problem: "asks for \(minutes) rounds; allowed are 1 to \(TimeLimits.maximumRounds)")
        }
        var phases = Program.roundPlan(prep: prep, rounds: minutes, work: .seconds(60), rest: nil, counting: .down)
        for index in phases.indices where phases[index].kind == .work {
            let reps = String(phases[index].round)
            phases[index].label = String(repeating: " ", count: 4 - reps.count) + reps
        }
        return Program(trusted: "deathby:\(minutes)", label: "DBY", phases: phases, warning: nil)
    }

    /// The cycle MODE walks through, with default arguments.
    public static let cycle: [Program] =
        [boxing, mma, muaythai, tabata]
        + [try? emom(), try? amrap(), try? forTime()].compactMap { $0 }
        + [stopwatch, .wallClock]

    /// Preset names with the argument syntax they take, for help texts and errors.
    public static let names = ["boxing", "mma", "muaythai", "tabata", "emom[:N]", "amrap[:M]", "fortime[:M]", "countdown:M:SS", "stopwatch", "clock"]

    /// The presets outside the MODE cycle, named as `names` are.
    public static let moreNames = ["fgb", "bjj", "deathby[:M]"]

    /// Every preset's name without its argument syntax (`emom[:N]` → `emom`): no program of
    /// the config file or the editor may take one, so a name always means one program.
    public static let reservedNames = (names + moreNames).map { String($0.prefix { $0 != "[" && $0 != ":" }) }

    /// The presets `programs` lists after the MODE cycle (MODE does not reach them; select
    /// them with `program`, `--program` or a `[programs]` entry), with default arguments.
    public static let more: [Program] = [fgb, bjj] + [try? deathBy()].compactMap { $0 }
}
