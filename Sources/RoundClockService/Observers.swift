import ControlProtocol
import Panels
import RoundClockCore
import Synchronization

/// One thing the render loop did, in the order it did it: the one channel out of the loop,
/// read by the frames recorder, the control socket, the event log, the watchdog's heartbeat
/// and persistence. Display times (`at`) are read right after the display call returned,
/// counted from the loop's start; turn times are the turn's `now`.
public enum LoopEvent<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    /// The loop woke; its turn's `now`.
    case turnStarted(Instant)
    /// A display attempt completed: a commit, or a power check (`update.panels` empty when
    /// no panel answered, `update.retryAfter` set while one is offline).
    case displayed(Face, update: DisplayUpdate, status: Status, at: Duration)
    /// A signal, an action or a display event.
    case occurred(LoopOccurrence, at: Duration)
    /// The session, on the first turn and on every turn that changed it, before that turn's
    /// commit: the `adopt` that made it (nil for any other change) and the turn's status.
    case session(Session<Instant>, adopted: SessionShare?, status: Status)
    /// After a turn in which an action changed the session (not the passage of time): what
    /// to keep, at the turn's `now`.
    case sessionChangedByAction(Session<Instant>, at: Instant)
    /// After a turn that fired signals or changed the session: the signals it fired, and the
    /// next ones the session fires by itself, with their instants (a speaker plays each on
    /// its instant; `upcoming` replaces the previous list, so a pause takes them back).
    case signals(fired: [SignalAt<Instant>], upcoming: [SignalAt<Instant>])
    /// With `start_at`: a class that started this turn (its slot's instant) and the next slot
    /// that will start one, whenever either changed.
    case classStarts(started: Instant?, next: Instant?)
    /// The turn is over; the loop sleeps until `deadline` (nil: until input).
    case waiting(until: Instant?)
}

/// Reads the render loop's events.
public protocol LoopObserver<Instant>: Sendable {
    associatedtype Instant: InstantProtocol & Sendable where Instant.Duration == Duration
    func observe(_ event: LoopEvent<Instant>)
}

/// The loop's one observer: hands every event to `events`, and the display events (commits,
/// display attempts, signals, actions, display errors) to `members`, each in order.
public struct Observers<Instant: InstantProtocol & Sendable>: LoopObserver where Instant.Duration == Duration {
    public let members: [any DisplayObserver]
    public let events: [any LoopObserver<Instant>]

    public init(members: [any DisplayObserver], events: [any LoopObserver<Instant>] = []) {
        self.members = members
        self.events = events
    }

    public init(_ members: any DisplayObserver...) {
        self.init(members: members)
    }

    public func observe(_ event: LoopEvent<Instant>) {
        switch event {
        case let .displayed(face, update, status, at): displayed(face, update: update, status: status, at: at)
        case let .occurred(occurrence, at): occurred(occurrence, at: at)
        default: for observer in events { observer.observe(event) }
        }
    }

    /// `observe(.displayed(...))`, without building the event unless an event reader wants it
    /// (the render loop reports every display attempt this way).
    public func displayed(_ face: Face, update: DisplayUpdate, status: Status, at: Duration) {
        if !update.panels.isEmpty {
            for member in members { member.committed(face, panels: update.panels, status: status, at: at) }
        }
        for member in members { member.displayed(face, update: update, status: status, at: at) }
        guard !events.isEmpty else { return }
        let event = LoopEvent<Instant>.displayed(face, update: update, status: status, at: at)
        for observer in events { observer.observe(event) }
    }

    /// `observe(.occurred(...))`, as `displayed`.
    public func occurred(_ occurrence: LoopOccurrence, at: Duration) {
        for member in members { member.occurred(occurrence, at: at) }
        guard !events.isEmpty else { return }
        let event = LoopEvent<Instant>.occurred(occurrence, at: at)
        for observer in events { observer.observe(event) }
    }
}

/// Counts panel changes, time-panel changes and signals (for summaries and tests).
public final class FrameCounter: DisplayObserver {
    private let counts = Mutex((frames: 0, timeChanges: 0, signals: 0, last: [PanelRole: PanelReadout]()))
    public init() {}
    public var frames: Int { counts.withLock { $0.frames } }
    /// Changes of the time panel: the displayed seconds.
    public var timeChanges: Int { counts.withLock { $0.timeChanges } }
    public var signals: Int { counts.withLock { $0.signals } }
    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        counts.withLock { c in
            for panel in panels where c.last[panel.role] != panel {
                c.frames += 1
                if panel.role == .time { c.timeChanges += 1 }
                c.last[panel.role] = panel
            }
        }
    }
    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        if case .signal = occurrence { counts.withLock { $0.signals += 1 } }
    }
}
