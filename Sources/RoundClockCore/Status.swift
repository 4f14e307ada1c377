/// What the panels show at one instant, the session's status then, and when the loop
/// must wake next (`Controller.view`).
public struct ControllerView<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    public var face: Face
    public var status: Status
    /// A face change, a signal or a long press; nil: nothing is due by itself.
    public var nextDeadline: Instant?
}

/// The session's state as reported in the frames file and logs (the raw values are the
/// frames file's words).
public struct Status: Sendable, Hashable {
    /// A session's state, or `clock` in clock mode.
    public enum State: String, Sendable, Hashable, CaseIterable {
        case ready, running, paused, finished, clock

        init(_ state: SessionState) {
            switch state {
            case .ready: self = .ready
            case .running: self = .running
            case .paused: self = .paused
            case .finished: self = .finished
            }
        }
    }

    /// The current phase's kind, or `clock` in clock mode.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case prep, work, rest, clock

        init(_ kind: PhaseKind) {
            switch kind {
            case .prep: self = .prep
            case .work: self = .work
            case .rest: self = .rest
            }
        }
    }

    public var state: State
    public var phase: Phase
    public var round: Int
    public var rounds: Int
    /// The session's program's name (the control socket's state lines).
    public var program: String
    /// Inside a work phase's warning window: from the `warning` signal (the program's
    /// `warning` before the phase ends) to the phase's end, running or paused.
    public var warning: Bool
    public init(state: State, phase: Phase, round: Int, rounds: Int, program: String = "", warning: Bool = false) {
        self.state = state
        self.phase = phase
        self.round = round
        self.rounds = rounds
        self.program = program
        self.warning = warning
    }
}
