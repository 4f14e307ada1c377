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
    /// Number of work rounds.
    public let rounds: Int

    /// Builds and validates a timed program: at most `TimeLimits.maximumPhases` phases,
    /// each (and the warning) longer than zero and at most `TimeLimits.maximumPhase`, so
    /// its total is at most `TimeLimits.maximumProgram`.
    public init(name: String, label: String, phases: [Phase], warning: Duration? = nil) throws(ProgramError) {
        try Self.validate(name: name, phases: phases, warning: warning)
        self.init(trusted: name, label: label, phases: phases, warning: warning)
    }

    /// Builds a program whose phases are known to be valid (the built-in presets).
    init(trusted name: String, label: String, phases: [Phase], warning: Duration?) {
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
        self.signals = Self.signalPoints(phases: phases, starts: starts, warning: warning)
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
                guard phase.counting == .up else {
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

    private static func signalPoints(phases: [Phase], starts: [Duration], warning: Duration?) -> [SignalPoint] {
        var points: [SignalPoint] = []
        for (index, phase) in phases.enumerated() {
            let start = starts[index]
            let end = phase.length.map { start + $0 }
            switch phase.kind {
            case .prep:
                if let end {
                    for k in stride(from: 3, through: 1, by: -1) where end - .seconds(k) >= start {
                        points.append(SignalPoint(offset: end - .seconds(k), signal: .prepTick))
                    }
                }
            case .work:
                points.append(SignalPoint(offset: start, signal: .start))
                if let end, let warning, let length = phase.length, warning < length {
                    points.append(SignalPoint(offset: end - warning, signal: .warning))
                }
            case .rest:
                break
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
