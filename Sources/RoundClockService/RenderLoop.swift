import ControlProtocol
import Panels
import Platform
import RoundClockCore

/// What the loop shows and sounds: committed frames, display attempts, buzzer signals,
/// actions, display errors, as `Observers` hands them on from the loop's events. `at` is read
/// from the clock right after the display commit returned.
public protocol DisplayObserver: Sendable {
    /// A face that at least one panel now shows (`panels`: those that answered).
    func committed(_ face: Face, panels: [PanelReadout], status: Status, at: Duration)
    /// Every completed display attempt, also one in which no panel answered
    /// (`update.panels` empty, `update.offline` naming them). Default: nothing.
    func displayed(_ face: Face, update: DisplayUpdate, status: Status, at: Duration)
    func occurred(_ occurrence: LoopOccurrence, at: Duration)
}

extension DisplayObserver {
    public func displayed(_ face: Face, update: DisplayUpdate, status: Status, at: Duration) {}
}

/// A signal, an action, or a display failure, as reported to observers.
public enum LoopOccurrence: Sendable, Hashable {
    /// A signal; `ahead` when the loop announced it (`LoopEvent.signals`) before it fired, so
    /// a speaker could place its sound on the instant; not for one a press brought (a skip).
    case signal(Signal, ahead: Bool)
    case action(Action)
    case display(DisplayEvent)
}

/// When the loop ends.
public enum StopCondition<Instant: Sendable>: Sendable {
    /// At this instant (inclusive: the frame due then is still shown).
    case at(Instant)
    /// This long after the session finished (the default for `simulate`).
    case afterFinish(Duration)
    /// Never: until the task is cancelled (a service).
    case never
}

/// The drift-free render loop. Each turn: read `now`, apply inputs due, compute the
/// face from the session anchor, commit it if it changed, ask the controller when the
/// picture next changes, and wait until that absolute deadline. It never counts ticks
/// and never sleeps for a relative amount, so a late wake-up corrects itself. What a turn
/// commits, reports and waits for is planned by `TurnPlanner`, which reads no clock and
/// does no I/O; this shell reads the clock, commits, reports and waits through `waiter`.
///
/// The display's power checks (`FaceDisplay.checkPower`, at least every
/// `powerCheckInterval` on the same clock, in every state) run after the turn's commit, so
/// they never delay one, and ride on display changes: a turn whose next wake-up comes after
/// the check falls due runs it early, at once; only when no wake-up comes before it does the
/// loop wake for the check itself. So while the picture changes at least every interval a
/// check costs no wake-up of its own. They are display attempts like commits (offline/online
/// events, retries, the watchdog's display health), but never keep a script from ending.
public struct RenderLoop<Waiter: LoopWaiter>: Sendable {
    public typealias Instant = Waiter.WaitClock.Instant
    /// How the loop waits between turns (the event loop, virtual time, a test clock); its
    /// clock is the loop's.
    public let waiter: Waiter
    public let start: Instant
    public let inbox: ButtonInbox<Instant>
    public let display: any FaceDisplay
    /// Where everything the loop does is reported (`LoopEvent`). A concrete type, so a report
    /// looks up no existential metadata at run time.
    public let observer: Observers<Instant>
    /// Local wall time at a monotonic instant (clock mode only).
    public let wallTime: @Sendable (Instant) -> WallTime
    public let stop: StopCondition<Instant>
    /// With nothing scheduled and no way for input to arrive (a script in virtual
    /// time), end instead of waiting forever.
    public let endWhenIdle: Bool
    /// Scripted inputs (simulation), applied at their exact instants.
    public let script: [ButtonEvent<Instant>]

    public var clock: Waiter.WaitClock { waiter.clock }

    public init(waiter: Waiter, start: Instant, inbox: ButtonInbox<Instant> = ButtonInbox(),
                display: any FaceDisplay, observer: Observers<Instant>,
                wallTime: @escaping @Sendable (Instant) -> WallTime,
                stop: StopCondition<Instant>, endWhenIdle: Bool = false,
                script: [ButtonEvent<Instant>] = []) {
        self.waiter = waiter
        self.start = start
        self.inbox = inbox
        self.display = display
        self.observer = observer
        self.wallTime = wallTime
        self.stop = stop
        self.endWhenIdle = endWhenIdle
        self.script = script
    }

    /// Runs until the stop condition or task cancellation; returns the final controller.
    /// `pending`: what the caller's own commands on `initial` produced before the loop
    /// (e.g. `simulate` starting the session at t = 0: the `start` action and the signals
    /// due at that instant), reported with the first turn's display attempt like any input's.
    /// The loop runs where the waiter runs it (an `EventLoopWaiter`: on its loop's thread).
    @discardableResult
    public func run(_ initial: Controller<Instant>, pending: [Occurrence<Instant>] = []) async -> Controller<Instant> {
        await waiter.running {
            var planner = TurnPlanner(controller: initial, pending: pending, script: script, stop: stop, endWhenIdle: endWhenIdle,
                                      powerCheckInterval: display.powerCheckInterval, at: clock.now)
            while !Task.isCancelled, await turn(&planner) {}
            // Inputs taken but not yet turned when the loop was stopped: applied, so the
            // session saved at shutdown includes them.
            let late = inbox.drain()
            if !late.isEmpty {
                let actions = planner.applyLate(late)
                let at = start.duration(to: clock.now)
                for action in actions { observer.occurred(.action(action), at: at) }
            }
            return planner.controller
        }
    }

    /// One turn: plan, commit, report, wait. False when the loop ends. Inlined into the
    /// loop, as is `attempt`: a call of its own each turn would set up an async frame and
    /// copy the turn's plan.
    @inline(__always)
    private func turn(_ planner: inout TurnPlanner<Instant>) async -> Bool {
        let now = clock.now
        // The wall time of this turn, read once, next to `now`: everything the turn derives
        // from it (clock mode's face, class starts, the next deadline) agrees with `now`,
        // however long the commits in between take.
        let wall = wallTime(now)
        observer.observe(.turnStarted(now))
        let (inputs, early) = planner.begin(at: now, arrived: inbox.drain())
        var attemptedAt: Duration?
        // Fast path (docs/design.md: the frame is precomputed before the sleep): nothing
        // arrived and the frame due at this deadline is known, so it is committed first.
        if let early { attemptedAt = await attempt(early, at: now, planner: &planner) }
        let turn = planner.turn(inputs, at: now, wallTime: wall)
        if let shared = turn.shared { observer.observe(shared) }
        if let commit = turn.commit { attemptedAt = await attempt(commit, at: now, planner: &planner) }
        let reportAt = attemptedAt ?? start.duration(to: now)
        for occurrence in turn.occurrences { observer.occurred(occurrence, at: reportAt) }
        for event in turn.events { observer.observe(event) }
        guard !turn.ends, var wake = planner.wake(at: now, wallTime: wall) else { return false }
        if wake.checksPower {
            let update = await display.checkPower()
            report(turn.current.face, update: update, status: turn.current.status)
            wake = planner.checked(retryAfter: update.retryAfter, planned: wake, at: now, wallTime: wall)
        }
        observer.observe(.waiting(until: wake.deadline))
        await waiter.wait(until: wake.deadline, for: inbox)
        return true
    }

    /// One display attempt, its outcome told to the planner; when it was reported.
    @inline(__always)
    private func attempt(_ frame: PlannedFrame, at now: Instant, planner: inout TurnPlanner<Instant>) async -> Duration {
        let (update, at) = await commit(frame.face, status: frame.status)
        planner.attempted(frame.face, retryAfter: update.retryAfter, at: now)
        return at
    }

    /// Shows `face` and reports what the panels now hold, and any display event, to the
    /// observer at the time read right after the commit returned (also returned). The loop
    /// commits every frame this way, and the service the picture it leaves at shutdown, so
    /// the frames file records that picture too.
    @discardableResult
    public func commit(_ face: Face, status: Status) async -> (update: DisplayUpdate, at: Duration) {
        let update = await display.show(face)
        return (update, report(face, update: update, status: status))
    }

    /// Reports a display attempt (a commit or a power check) at the time read now.
    @discardableResult
    private func report(_ face: Face, update: DisplayUpdate, status: Status) -> Duration {
        let at = start.duration(to: clock.now)
        observer.displayed(face, update: update, status: status, at: at)
        for event in update.events { observer.occurred(.display(event), at: at) }
        return at
    }
}

/// The render loop's thread: an `EventLoop` of this name.
public enum LoopThread {
    /// As `top -H` and /proc/PID/task/TID/comm show it (15 bytes at most).
    public static let name = "roundclock-loop"
}
