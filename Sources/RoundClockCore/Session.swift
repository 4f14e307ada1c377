/// Where a session is. Derived, never stored: see `Session`.
public enum SessionState: String, Sendable, Hashable {
    case ready, running, paused, finished
}

/// A workout session. It stores only the program, the running time accumulated before
/// the last pause (`elapsedBefore`) and the instant the current run started (`anchor`);
/// everything else is derived from `now - anchor` when asked, so a late wake-up can never
/// accumulate into drift.
///
/// Generic over the clock's instant: real runs use a monotonic clock, tests a virtual one.
public struct Session<Instant: InstantProtocol>: Sendable, Hashable where Instant.Duration == Duration, Instant: Sendable {
    public let program: Program
    /// Running time accumulated before the current run (or in total while paused), kept
    /// within `0 ... TimeLimits.maximumElapsed` whatever a caller (a state file) hands in.
    public private(set) var elapsedBefore: Duration
    /// Monotonic instant at which the current run started; `nil` unless running.
    public private(set) var anchor: Instant?
    /// The `start_at` slot (local wall time) the clock last started a session for; kept
    /// through reset and program changes and saved, so no restart starts that class again.
    public var classSlot: WallTime?

    public init(program: Program, elapsedBefore: Duration = .zero, anchor: Instant? = nil) {
        self.program = program
        self.elapsedBefore = min(max(elapsedBefore, .zero), TimeLimits.maximumElapsed)
        self.anchor = anchor
    }

    /// Running time at `now`, clamped to `0 ... total`.
    public func elapsed(at now: Instant) -> Duration {
        var elapsed = elapsedBefore
        if let anchor {
            let sinceAnchor = anchor.duration(to: now)
            if sinceAnchor > .zero { elapsed += sinceAnchor }
        }
        if let total = program.total, elapsed > total { elapsed = total }
        return elapsed
    }

    public func state(at now: Instant) -> SessionState {
        if let total = program.total, elapsed(at: now) >= total { return .finished }
        if anchor != nil { return .running }
        return elapsedBefore == .zero ? .ready : .paused
    }

    /// The instant at which the running time reaches `offset`; `nil` unless running.
    public func instant(atElapsed offset: Duration) -> Instant? {
        anchor.map { $0.advanced(by: offset - elapsedBefore) }
    }

    // MARK: Commands. Each returns whether the session changed.

    /// Starts a ready session, resumes a paused one, restarts a finished one.
    @discardableResult
    public mutating func start(at now: Instant) -> Bool {
        guard program.kind == .intervals else { return false }
        switch state(at: now) {
        case .running: return false
        case .ready, .finished: elapsedBefore = .zero; anchor = now
        case .paused: anchor = now
        }
        return true
    }

    /// Freezes a running session at `now`.
    @discardableResult
    public mutating func pause(at now: Instant) -> Bool {
        guard anchor != nil else { return false }
        elapsedBefore = elapsed(at: now)
        anchor = nil
        return true
    }

    /// Resumes a paused session; only `start` also restarts.
    @discardableResult
    public mutating func resume(at now: Instant) -> Bool {
        guard state(at: now) == .paused else { return false }
        anchor = now
        return true
    }

    /// Back to ready with the same program.
    @discardableResult
    public mutating func reset() -> Bool {
        guard anchor != nil || elapsedBefore != .zero else { return false }
        elapsedBefore = .zero
        anchor = nil
        return true
    }

    /// Jumps to the start of the next phase (or the end, from the last phase).
    /// An open-ended last phase cannot be skipped. Coming use: MODE held 2 s and the
    /// remote's `skip`, both through `Action.skip`.
    @discardableResult
    public mutating func skipPhase(at now: Instant) -> Bool {
        guard program.kind == .intervals, state(at: now) != .finished else { return false }
        let index = program.phaseIndex(atElapsed: elapsed(at: now))
        let target: Duration
        if index + 1 < program.phases.count {
            target = program.starts[index + 1]
        } else if let total = program.total {
            target = total
        } else {
            return false
        }
        elapsedBefore = target
        if anchor != nil { anchor = now }
        return true
    }

    /// Gives the current phase `change` more remaining time (a negative one takes time away),
    /// clamped so the remaining time stays within 0 ... the phase's length: adding at most
    /// brings the phase back to its start, taking at most ends it. A count-up phase shows the
    /// same move as its elapsed time going the other way; an open-ended one has no upper bound
    /// but the session's limit. Only while running or paused; a running session re-anchors.
    @discardableResult
    public mutating func adjust(by change: Duration, at now: Instant) -> Bool {
        guard isUnderway(at: now) else { return false }
        let elapsed = elapsed(at: now)
        let index = program.phaseIndex(atElapsed: elapsed)
        let end = program.end(ofPhase: index) ?? TimeLimits.maximumElapsed
        let target = min(max(elapsed - change, program.starts[index]), end)
        return move(to: target, from: elapsed, at: now)
    }

    /// Back to the start of the current phase, or of the previous one when the current phase
    /// started less than `grace` of running time ago (the first phase: its own start).
    /// Only while running or paused; a running session re-anchors and keeps running.
    @discardableResult
    public mutating func back(at now: Instant, grace: Duration = .seconds(3)) -> Bool {
        guard isUnderway(at: now) else { return false }
        let elapsed = elapsed(at: now)
        let index = program.phaseIndex(atElapsed: elapsed)
        let justStarted = elapsed - program.starts[index] < grace && index > 0
        return move(to: program.starts[justStarted ? index - 1 : index], from: elapsed, at: now)
    }

    /// Whether the session is running or paused (in a program with phases).
    private func isUnderway(at now: Instant) -> Bool {
        let state = state(at: now)
        return program.kind == .intervals && (state == .running || state == .paused)
    }

    /// Sets the running time to `target`; a running session re-anchors at `now`.
    private mutating func move(to target: Duration, from elapsed: Duration, at now: Instant) -> Bool {
        guard target != elapsed else { return false }
        elapsedBefore = target
        if anchor != nil { anchor = now }
        return true
    }

    // MARK: Derived view

    /// The derived view at `now`; `nil` for the wall-clock program, which has no phases.
    public func snapshot(at now: Instant) -> Snapshot? {
        guard program.kind == .intervals else { return nil }
        return Snapshot(program: program, elapsed: elapsed(at: now), state: state(at: now))
    }
}

/// Everything about a session at one instant, derived from its running time.
public struct Snapshot: Sendable, Hashable {
    public var state: SessionState
    /// Running time since the start of the session (pauses excluded).
    public var elapsed: Duration
    public var phaseIndex: Int
    public var phase: Phase
    public var elapsedInPhase: Duration
    /// `nil` for an open-ended phase.
    public var remainingInPhase: Duration?
    public var round: Int
    public var rounds: Int

    /// O(log n) in the number of phases. `program` must have at least one phase.
    public init(program: Program, elapsed: Duration, state: SessionState) {
        let index = program.phaseIndex(atElapsed: elapsed)
        let phase = program.phases[index]
        self.state = state
        self.elapsed = elapsed
        self.phaseIndex = index
        self.phase = phase
        self.elapsedInPhase = elapsed - program.starts[index]
        self.remainingInPhase = phase.length.map { $0 - (elapsed - program.starts[index]) }
        self.round = phase.round
        self.rounds = program.rounds
    }
}

extension Snapshot {
    /// Whether a running or paused work phase is inside its warning window: its last
    /// `program.warning`, from the instant the `warning` signal sounds (a warning as long as
    /// the phase or longer has no signal and no window) to the phase's end.
    public func isInWarningWindow(of program: Program) -> Bool {
        guard state == .running || state == .paused, phase.kind == .work, let warning = program.warning,
              let length = phase.length, warning < length, let remaining = remainingInPhase else { return false }
        return remaining <= warning
    }
}
