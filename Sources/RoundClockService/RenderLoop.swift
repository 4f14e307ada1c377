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
/// picture next changes, and sleep until that absolute deadline. It never counts ticks
/// and never sleeps for a relative amount, so a late wake-up corrects itself.
///
/// The display's power checks (`FaceDisplay.checkPower`, at least every
/// `powerCheckInterval` on the same clock, in every state) run after the turn's commit, so
/// they never delay one, and ride on display changes: a turn whose next wake-up comes after
/// the check falls due runs it early, at once; only when no wake-up comes before it does the
/// loop wake for the check itself. So while the picture changes at least every interval a
/// check costs no wake-up of its own. They are display attempts like commits (offline/online
/// events, retries, the watchdog's display health), but never keep a script from ending.
public struct RenderLoop<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable, C: Sendable {
    public let clock: C
    public let start: C.Instant
    public let inbox: ButtonInbox<C.Instant>
    public let display: any FaceDisplay
    /// Where everything the loop does is reported (`LoopEvent`). A concrete type, so a report
    /// looks up no existential metadata at run time.
    public let observer: Observers<C.Instant>
    /// Local wall time at a monotonic instant (clock mode only).
    public let wallTime: @Sendable (C.Instant) -> WallTime
    public let stop: StopCondition<C.Instant>
    /// With nothing scheduled and no way for input to arrive (a script in virtual
    /// time), end instead of waiting forever.
    public let endWhenIdle: Bool
    /// Scripted inputs (simulation), applied at their exact instants.
    public let script: [ButtonEvent<C.Instant>]
    /// The event loop whose thread runs the loop on a CLOCK_MONOTONIC clock (`run`'s, shared
    /// with its other work); nil: one of its own for the loop's run.
    public let eventLoop: EventLoop?

    public init(clock: C, start: C.Instant, inbox: ButtonInbox<C.Instant> = ButtonInbox(),
                display: any FaceDisplay, observer: Observers<C.Instant>,
                wallTime: @escaping @Sendable (C.Instant) -> WallTime,
                stop: StopCondition<C.Instant>, endWhenIdle: Bool = false,
                script: [ButtonEvent<C.Instant>] = [],
                eventLoop: EventLoop? = nil) {
        self.eventLoop = eventLoop
        self.clock = clock
        self.start = start
        self.inbox = inbox
        self.display = display
        self.observer = observer
        self.wallTime = wallTime
        self.stop = stop
        self.endWhenIdle = endWhenIdle
        self.script = script.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// Runs until the stop condition or task cancellation; returns the final controller.
    /// `pending`: what the caller's own commands on `initial` produced before the loop
    /// (e.g. `simulate` starting the session at t = 0: the `start` action and the signals
    /// due at that instant), reported with the first turn's display attempt like any input's.
    ///
    /// On a clock that places its instants on CLOCK_MONOTONIC (`MonotonicClock`), the loop
    /// runs on an event loop's thread (`eventLoop`, or one of its own named `LoopThread.name`)
    /// and sleeps there in its epoll_wait, on a timerfd armed at the absolute deadline, so a
    /// display change wakes one thread once. Other clocks (`VirtualClock`, test clocks) are
    /// slept on with their `sleep(until:)`.
    @discardableResult
    public func run(_ initial: Controller<C.Instant>, pending: [Occurrence<C.Instant>] = []) async -> Controller<C.Instant> {
        if let waits = ThreadWaits(clock), let loop = eventLoop ?? (try? EventLoop(name: LoopThread.name)) {
            defer { if eventLoop == nil { loop.finish() } }
            return await withTaskExecutorPreference(loop) {
                await turns(initial, pending: pending) { deadline in
                    if let deadline, waits.reading(deadline) == nil {
                        await inbox.wait(until: deadline, on: clock)
                    } else {
                        await inbox.wait(untilMonotonic: deadline.flatMap(waits.reading), on: loop)
                    }
                    waits.woke(deadline)
                }
            }
        }
        return await turns(initial, pending: pending) { await inbox.wait(until: $0, on: clock) }
    }

    /// The loop itself; `wait` sleeps until the deadline (nil: until input) or an input.
    private func turns(_ initial: Controller<C.Instant>, pending: [Occurrence<C.Instant>],
                       wait: (C.Instant?) async -> Void) async -> Controller<C.Instant> {
        var controller = initial
        var carried = pending
        // The face of the last display attempt (shown, unless a panel is offline: then
        // `retryAt` says when to try it again).
        var attempted: Face?
        var nextScripted = 0
        var finishedAt: C.Instant?
        // While a panel is offline: when to show the face again (backoff from the display).
        var retryAt: C.Instant?
        var precomputed: (at: C.Instant, face: Face, status: Status)?
        // The signals last announced ahead (`LoopEvent.signals`).
        var announced: [SignalAt<C.Instant>] = []
        var announcedClass: C.Instant?
        let checkInterval = display.powerCheckInterval.flatMap { $0 > .zero ? $0 : nil }
        // The first check runs on the first turn, right after its commit: it reads nothing
        // (every byte was just written), but it starts the check period, so the next one, an
        // interval later, can already read a byte written at start-up and not since.
        var checkDue = checkInterval.map { _ in clock.now }
        var sessionTracker = SessionChangeTracker<C.Instant>()
        while !Task.isCancelled {
            let now = clock.now
            // The wall time of this turn, read once, next to `now`: everything the turn derives
            // from it (clock mode's face, class starts, the next deadline) agrees with `now`,
            // however long the commits in between take.
            let wall = wallTime(now)
            observer.observe(.turnStarted(now))
            var inputs = inbox.drain()
            while nextScripted < script.count, script[nextScripted].at <= now {
                inputs.append(.button(script[nextScripted]))
                nextScripted += 1
            }
            // One display attempt: commits `face`, reports it, and notes whether it showed.
            var attemptedAt: Duration?
            var attemptFailed = false
            func attempt(_ face: Face, status: Status) async {
                let (update, at) = await commit(face, status: status)
                attemptedAt = at
                attempted = face
                attemptFailed = update.retryAfter != nil
                retryAt = update.retryAfter.map { now.advanced(by: $0) }
            }
            // Fast path (docs/design.md: the frame is precomputed before the sleep): nothing
            // arrived and the frame due at this deadline is known, so commit it first;
            // the full turn below follows and corrects it if anything differs.
            if inputs.isEmpty, retryAt == nil, let next = precomputed, next.at <= now, next.face != attempted {
                await attempt(next.face, status: next.status)
            }
            precomputed = nil
            var occurrences = carried
            carried = []
            sessionTracker.passed(controller.session)
            for input in inputs.sorted(by: { $0.at < $1.at }) {
                occurrences += controller.apply(input)
                sessionTracker.applied(input, session: controller.session)
            }
            occurrences += controller.advance(to: now)
            let scheduled = controller.startOnSchedule(at: now, wallTime: wall)
            occurrences += scheduled
            sessionTracker.passed(controller.session)

            // Face, status and next deadline from one snapshot and one wall time reading (the
            // controller does not change again this turn).
            let view = controller.view(at: now, wallTime: wall)
            let face = view.face
            let sharing = sessionTracker.take()
            if sharing.share { observer.observe(.session(controller.session, adopted: sharing.adopted, status: view.status)) }
            // At most one display attempt per turn: after a failed fast one, wait for the retry.
            if !attemptFailed, face != attempted || retryAt.map({ $0 <= now }) == true {
                await attempt(face, status: view.status)
            }
            let reportAt = attemptedAt ?? start.duration(to: now)
            var changed = false
            for occurrence in occurrences {
                switch occurrence {
                case .signal(let signal, let at):
                    let ahead = announced.contains { $0.signal == signal && $0.at == at }
                    observer.occurred(.signal(signal, ahead: ahead), at: reportAt)
                case .action(let action, _): observer.occurred(.action(action), at: reportAt); changed = true
                }
            }
            if changed { observer.observe(.sessionChangedByAction(controller.session, at: now)) }
            if sharing.share || !occurrences.isEmpty {
                // A fired signal's point in the program: the session's elapsed time at its
                // ideal instant.
                let session = controller.session
                let fired = occurrences.compactMap { occurrence -> SignalAt<C.Instant>? in
                    guard case .signal(let signal, let at) = occurrence else { return nil }
                    return SignalAt(signal: signal, at: at, offset: session.elapsed(at: at))
                }
                let upcoming = controller.upcomingSignals(limit: 6)
                if !fired.isEmpty || upcoming != announced {
                    observer.observe(.signals(fired: fired, upcoming: upcoming))
                    announced = upcoming
                }
            }
            if controller.classStarts != nil {
                let started = scheduled.lazy.compactMap { occurrence -> C.Instant? in
                    if case .action(.start, let at) = occurrence { at } else { nil }
                }.first
                let next = controller.nextClassStart(at: now, wallTime: wall)
                if started != nil || next != announcedClass {
                    observer.observe(.classStarts(started: started, next: next))
                    announcedClass = next
                }
            }

            // When to stop.
            let session = controller.session
            if session.state(at: now) == .finished {
                // The exact finish instant while the anchor is known; else when seen.
                finishedAt = finishedAt ?? session.program.total.flatMap { session.instant(atElapsed: $0) } ?? now
            } else {
                finishedAt = nil
            }
            let stopAt: C.Instant?
            switch stop {
            case .at(let instant): stopAt = instant
            case .afterFinish(let grace): stopAt = finishedAt.map { $0.advanced(by: grace) }
            case .never: stopAt = nil
            }
            if let stopAt, now >= stopAt { break }

            // When to wake: the earliest of the next picture change, signal or long
            // press, scripted input, display retry, and the stop instant.
            var deadline = view.nextDeadline
            for candidate in [nextScripted < script.count ? script[nextScripted].at : nil, retryAt, stopAt] {
                if let candidate, deadline.map({ candidate < $0 }) ?? true { deadline = candidate }
            }
            if deadline == nil, endWhenIdle { break }
            // The power check, after this turn's commit (also while a panel is offline: it
            // checks the others): now if it is due, or early if the next wake-up comes after
            // it falls due but within an interval (so this turn carries it and no wake-up of
            // its own is needed); else the loop wakes for it when it is due.
            if let due = checkDue, let interval = checkInterval,
               due <= now || deadline.map({ due < $0 && $0 <= now.advanced(by: interval) }) == true {
                let update = await display.checkPower()
                report(face, update: update, status: view.status)
                if let retry = update.retryAfter {
                    // A retry already pending keeps its backoff; an outage found here starts one.
                    let at = retryAt ?? now.advanced(by: retry)
                    retryAt = at
                    deadline = min(deadline ?? at, at)
                } else {
                    retryAt = nil
                }
                // From this check, so an early one never stretches the gap to the next.
                checkDue = now.advanced(by: interval)
            }
            if let due = checkDue, deadline.map({ due < $0 }) ?? true { deadline = due }
            if let deadline {
                // The frame due at the deadline, as the next turn will compute it.
                let due = controller.viewAhead(at: deadline, wallTime: wall.advanced(by: now.duration(to: deadline)))
                precomputed = (deadline, due.face, due.status)
            }
            observer.observe(.waiting(until: deadline))
            await wait(deadline)
        }
        // Inputs taken but not yet turned when the loop was stopped (a command acknowledged
        // just before a shutdown): applied, so the session saved at shutdown includes them.
        let late = inbox.drain()
        if !late.isEmpty {
            var occurrences: [Occurrence<C.Instant>] = []
            for input in late.sorted(by: { $0.at < $1.at }) { occurrences += controller.apply(input) }
            let at = start.duration(to: clock.now)
            for case .action(let action, _) in occurrences { observer.occurred(.action(action), at: at) }
        }
        return controller
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

/// For a `MonotonicDeadlineClock`: its instants as CLOCK_MONOTONIC readings, and its
/// wake-up hook, typed for the loop's generic clock.
private struct ThreadWaits<Instant>: Sendable {
    let reading: @Sendable (Instant) -> Duration?
    let woke: @Sendable (Instant?) -> Void

    init?<C: Clock>(_ clock: C) where C.Instant == Instant {
        guard let kernel = clock as? any MonotonicDeadlineClock,
              let waits = Self.opened(kernel) as? ThreadWaits<Instant>,
              waits.reading(clock.now) != nil else { return nil }
        self = waits
    }

    private init(reading: @escaping @Sendable (Instant) -> Duration?, woke: @escaping @Sendable (Instant?) -> Void) {
        self.reading = reading
        self.woke = woke
    }

    private static func opened<K: MonotonicDeadlineClock>(_ clock: K) -> Any {
        ThreadWaits<K.Instant>(reading: { clock.monotonicReading(of: $0) }, woke: { clock.loopWoke(waitingFor: $0) })
    }
}

/// The render loop's thread: an `EventLoop` of this name.
public enum LoopThread {
    /// As `top -H` and /proc/PID/task/TID/comm show it (15 bytes at most).
    public static let name = "roundclock-loop"
}
