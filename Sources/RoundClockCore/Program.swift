/// A workout: an ordered list of phases plus the signal points derived from them,
/// or the wall clock. Immutable once built; all timeline look-ups are O(log n).
public struct Program: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Timed phases, driven by a session.
        case intervals
        /// The wall clock, HH:MM (24 h) with the colon blinking at 1 Hz.
        case wallClock
    }

    /// The spec that names this program, e.g. `boxing`, `emom:12` or a DSL line.
    public private(set) var name: String
    /// Up to four characters for the phase panel while the program is selected but idle.
    public let label: String
    public let kind: Kind
    public let phases: [Phase]
    /// Time before the end of each work phase at which `warning` sounds.
    public let warning: Duration?
    /// Start offset of each phase on the session timeline (elapsed running time).
    public let starts: [Duration]
    /// Length of the whole session; `nil` when the last phase is open-ended.
    public let total: Duration?
    /// Every signal of the session, sorted by offset.
    public let signals: [SignalPoint]
    /// Number of work rounds (in a program with sets: rounds per set).
    public let rounds: Int
    /// Number of sets; 0 when the program has none (the round panel shows `rr.tt`).
    public let sets: Int
    /// Beeps in the last seconds before each phase change; `nil`: 3 at the end of prep only.
    public let countdownBeeps: Int?
    /// MODE pressed while running counts a completed round (AMRAP).
    public let countsRounds: Bool
    /// Whether the program goes on past its cap, `+M:SS` (an open-ended `overtime` last phase).
    public var hasOvertime: Bool { phases.last?.counting == .overtime }

    /// Builds and validates a timed program: at most `TimeLimits.maximumPhases` phases,
    /// each (and the warning) longer than zero and at most `TimeLimits.maximumPhase`, so
    /// its total is at most `TimeLimits.maximumProgram`.
    public init(name: String, label: String, phases: [Phase], warning: Duration? = nil,
                countdownBeeps: Int? = nil, countsRounds: Bool = false) throws(ProgramError) {
        try Self.validate(name: name, phases: phases, warning: warning)
        if let countdownBeeps, !(0...TimeLimits.maximumCountdownBeeps).contains(countdownBeeps) {
            throw ProgramError(program: name, problem: "asks for \(countdownBeeps) countdown beeps; allowed are 0 to \(TimeLimits.maximumCountdownBeeps)")
        }
        self.init(trusted: name, label: label, phases: phases, warning: warning,
                  countdownBeeps: countdownBeeps, countsRounds: countsRounds)
    }

    /// Builds a program whose phases are known to be valid (the built-in presets).
    init(trusted name: String, label: String, phases: [Phase], warning: Duration?,
         countdownBeeps: Int? = nil, countsRounds: Bool = false) {
        var starts: [Duration] = []
        var offset = Duration.zero
        for phase in phases {
            starts.append(offset)
            offset += phase.length ?? .zero
        }
        self.name = name
        self.label = label
        self.kind = .intervals
        self.phases = phases
        self.warning = warning
        self.starts = starts
        self.total = phases.last?.length == nil ? nil : offset
        self.rounds = phases.map(\.round).max() ?? 0
        self.sets = phases.map(\.set).max() ?? 0
        self.countdownBeeps = countdownBeeps
        self.countsRounds = countsRounds
        self.signals = Self.signalPoints(phases: phases, starts: starts, warning: warning, countdownBeeps: countdownBeeps)
    }

    static func validate(name: String, phases: [Phase], warning: Duration?) throws(ProgramError) {
        guard !phases.isEmpty else { throw ProgramError(program: name, problem: "has no phases") }
        guard phases.count <= TimeLimits.maximumPhases else {
            throw ProgramError(program: name, problem: "has \(phases.count) phases; at most \(TimeLimits.maximumPhases) allowed")
        }
        for (index, phase) in phases.enumerated() {
            if let length = phase.length {
                guard length > .zero, length <= TimeLimits.maximumPhase else {
                    throw ProgramError(program: name, problem: "phase \(index + 1) (\(phase.kind.rawValue)) has length \(length.clockNotation); it must be longer than 0:00 and at most \(TimeLimits.maximumPhase.clockNotation)")
                }
            } else {
                guard phase.counting != .down else {
                    throw ProgramError(program: name, problem: "phase \(index + 1) counts down but has no length")
                }
                guard index == phases.count - 1 else {
                    throw ProgramError(program: name, problem: "phase \(index + 1) is open-ended; only the last phase may be")
                }
            }
        }
        if let warning, warning <= .zero || warning > TimeLimits.maximumPhase {
            throw ProgramError(program: name, problem: "warning must be longer than 0:00 and at most \(TimeLimits.maximumPhase.clockNotation)")
        }
    }

    /// The same program under another name (a `[programs]` entry): the phases, starts and
    /// signals are kept, not built and validated again.
    public func named(_ name: String) -> Program {
        var copy = self
        copy.name = name
        return copy
    }

    /// The wall-clock program.
    public static let wallClock = Program(wallClockNamed: "clock", label: "TIME")

    private init(wallClockNamed name: String, label: String) {
        self.name = name
        self.label = label
        self.kind = .wallClock
        self.phases = []
        self.warning = nil
        self.starts = []
        self.total = nil
        self.rounds = 0
        self.sets = 0
        self.countdownBeeps = nil
        self.countsRounds = false
        self.signals = []
    }

    /// Index of the phase that is current at `elapsed` (the last one whose start is at
    /// or before it). Binary search: O(log n).
    public func phaseIndex(atElapsed elapsed: Duration) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= elapsed { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// Index of the first signal at or after `offset`. Binary search: O(log n).
    public func firstSignalIndex(atOrAfter offset: Duration) -> Int {
        var low = 0
        var high = signals.count
        while low < high {
            let mid = (low + high) / 2
            if signals[mid].offset < offset { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// End offset of phase `index`, `nil` if it is open-ended.
    public func end(ofPhase index: Int) -> Duration? {
        phases[index].length.map { starts[index] + $0 }
    }

    /// Every signal of the timeline: countdown beeps before a phase ends (`prep-tick` in
    /// prep, `tick` elsewhere; 3 at the end of prep unless `countdownBeeps` says how many
    /// before every phase end), each phase's start signal (`start` for work), halfway
    /// signals, the warning before a work phase ends, `end` when work gives way to rest,
    /// `finish` when the last phase ends.
    private static func signalPoints(phases: [Phase], starts: [Duration], warning: Duration?, countdownBeeps: Int?) -> [SignalPoint] {
        var points: [SignalPoint] = []
        for (index, phase) in phases.enumerated() {
            let start = starts[index]
            let end = phase.length.map { start + $0 }
            let beeps = countdownBeeps ?? (phase.kind == .prep ? 3 : 0)
            if let end, beeps > 0 {
                for k in stride(from: beeps, through: 1, by: -1) where end - .seconds(k) >= start {
                    points.append(SignalPoint(offset: end - .seconds(k), signal: phase.kind == .prep ? .prepTick : .tick))
                }
            }
            if let signal = phase.startSignal { points.append(SignalPoint(offset: start, signal: signal)) }
            if let signal = phase.halfwaySignal, let length = phase.length {
                points.append(SignalPoint(offset: start + length / 2, signal: signal))
            }
            if phase.kind == .work, let end, let warning, let length = phase.length, warning < length {
                points.append(SignalPoint(offset: end - warning, signal: .warning))
            }
            guard let end else { continue }
            if index == phases.count - 1 {
                points.append(SignalPoint(offset: end, signal: .finish))
            } else if phase.kind == .work && phases[index + 1].kind != .work {
                points.append(SignalPoint(offset: end, signal: .end))
            }
        }
        // Stable: points at equal offsets keep the order above.
        return points.enumerated().sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(\.element)
    }
}

/// A program that cannot be built, e.g. a zero-length phase.
public struct ProgramError: Error, Sendable, Hashable, CustomStringConvertible {
    public var program: String
    public var problem: String
    public var description: String { "program '\(program)' \(problem)" }
}
