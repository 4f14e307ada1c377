import RoundClockCore

/// A face to commit and the status reported with it.
struct PlannedFrame: Sendable, Equatable {
    var face: Face
    var status: Status
}

/// The render loop's turns without their clock, threads and display: given the inputs and
/// the instant of a turn (and the outcome of each display attempt), it says what to commit,
/// what to report and when to wake next. It holds the controller and what the loop carries
/// from one turn to the next; it reads no clock and does no I/O.
///
/// A turn, in order: `begin` takes the inputs due and names the frame precomputed for this
/// instant, to commit before anything else; `turn` applies the inputs and names the turn's
/// own commit and what to report; `wake` names the next deadline and whether the power
/// check runs now, and `checked` takes that check's outcome. After every display attempt,
/// `attempted` takes its outcome.
struct TurnPlanner<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    private(set) var controller: Controller<Instant>
    /// Scripted inputs (simulation), sorted by instant, each taken on the first turn at or after it.
    let script: [ButtonEvent<Instant>]
    let stop: StopCondition<Instant>
    /// With nothing scheduled (no input can arrive), end instead of waiting forever.
    let endWhenIdle: Bool
    /// How often the display's power is checked (nil: never).
    let checkInterval: Duration?

    /// What the caller's own commands produced before the loop: reported with the first turn.
    private var carried: [Occurrence<Instant>]
    private var nextScripted = 0
    /// The face of the last display attempt (shown, unless a panel is offline: then
    /// `retryAt` says when to try it again).
    private var attempted: Face?
    /// While a panel is offline: when to show the face again (backoff from the display).
    private var retryAt: Instant?
    /// A display attempt failed this turn: no other is made until the retry.
    private var failedThisTurn = false
    /// The frame due at the deadline waited for, as the next turn will compute it, and when
    /// it stops being current (nil: not by itself).
    private var precomputed: (at: Instant, until: Instant?, frame: PlannedFrame)?
    /// The signals last announced ahead (`LoopEvent.signals`).
    private var announced: [SignalAt<Instant>] = []
    private var announcedClass: Instant?
    private var checkDue: Instant?
    private var finishedAt: Instant?
    private var stopAt: Instant?
    private var nextChange: Instant?
    private var sessionTracker = SessionChangeTracker<Instant>()

    /// `now`: when the loop starts. The first power check runs on the first turn, right
    /// after its commit: it reads nothing (every byte was just written), but it starts the
    /// check period, so the next one, an interval later, can already read a byte written at
    /// start-up and not since.
    init(controller: Controller<Instant>, pending: [Occurrence<Instant>] = [], script: [ButtonEvent<Instant>] = [],
         stop: StopCondition<Instant>, endWhenIdle: Bool = false, powerCheckInterval: Duration? = nil, at now: Instant) {
        self.controller = controller
        carried = pending
        self.script = script.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        self.stop = stop
        self.endWhenIdle = endWhenIdle
        checkInterval = powerCheckInterval.flatMap { $0 > .zero ? $0 : nil }
        checkDue = checkInterval.map { _ in now }
    }

    /// The start of a turn at `now`: the inputs due (`arrived`, then the scripted ones up to
    /// `now`), and the frame precomputed for this instant if nothing arrived, it is not shown
    /// yet and still current (it is committed first; `turn` corrects it if anything differs).
    /// A turn so late that the precomputed frame is past commits only the current one.
    mutating func begin(at now: Instant, arrived: [LoopInput<Instant>]) -> (inputs: [LoopInput<Instant>], early: PlannedFrame?) {
        failedThisTurn = false
        var inputs = arrived
        while nextScripted < script.count, script[nextScripted].at <= now {
            inputs.append(.button(script[nextScripted]))
            nextScripted += 1
        }
        defer { precomputed = nil }
        guard inputs.isEmpty, retryAt == nil, let next = precomputed, next.at <= now, next.until.map({ now < $0 }) ?? true,
              next.frame.face != attempted
        else { return (inputs, nil) }
        return (inputs, next.frame)
    }

    /// A display attempt of `face` at `now` ended; `retryAfter`: a panel did not answer.
    mutating func attempted(_ face: Face, retryAfter: Duration?, at now: Instant) {
        attempted = face
        failedThisTurn = failedThisTurn || retryAfter != nil
        retryAt = retryAfter.map { now.advanced(by: $0) }
    }

    /// What a turn commits and reports.
    struct Turn: Sendable {
        /// The face and status at the turn's instant (also what a power check reports).
        var current: PlannedFrame
        /// The session to share, before the commit.
        var shared: LoopEvent<Instant>?
        /// The turn's commit: `current` when it is not shown yet or a retry is due.
        var commit: PlannedFrame?
        /// Reported at the time of the turn's last display attempt.
        var occurrences: [LoopOccurrence]
        /// Reported after the occurrences.
        var events: [LoopEvent<Instant>]
        /// The stop instant is reached: the loop ends after this turn's reports.
        var ends: Bool
    }

    /// Applies `inputs` (from `begin`) and time up to `now`, read with the wall time `wall`.
    mutating func turn(_ inputs: [LoopInput<Instant>], at now: Instant, wallTime wall: WallTime) -> Turn {
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
        // Face, status and next change from one snapshot and one wall time reading (the
        // controller does not change again this turn).
        let view = controller.view(at: now, wallTime: wall)
        nextChange = view.nextDeadline
        let current = PlannedFrame(face: view.face, status: view.status)
        let sharing = sessionTracker.take()
        var turn = Turn(current: current, occurrences: [], events: [], ends: false)
        if sharing.share { turn.shared = .session(controller.session, adopted: sharing.adopted, status: view.status) }
        if !failedThisTurn, current.face != attempted || retryAt.map({ $0 <= now }) == true { turn.commit = current }
        turn.occurrences = reports(occurrences, at: now, share: sharing.share, into: &turn.events)
        if controller.classStarts != nil, let event = classStartsEvent(scheduled, at: now, wallTime: wall) { turn.events.append(event) }
        turn.ends = stopReached(at: now)
        return turn
    }

    /// The occurrences as observers see them; the events that follow them into `events`.
    private mutating func reports(_ occurrences: [Occurrence<Instant>], at now: Instant, share: Bool,
                                  into events: inout [LoopEvent<Instant>]) -> [LoopOccurrence] {
        var changed = false
        let reported = occurrences.map { occurrence -> LoopOccurrence in
            switch occurrence {
            case .signal(let signal, let at):
                return .signal(signal, ahead: announced.contains { $0.signal == signal && $0.at == at })
            case .action(let action, _):
                changed = true
                return .action(action)
            }
        }
        if changed { events.append(.sessionChangedByAction(controller.session, at: now)) }
        guard share || !occurrences.isEmpty else { return reported }
        // A fired signal's point in the program: the session's elapsed time at its ideal instant.
        let session = controller.session
        let fired = occurrences.compactMap { occurrence -> SignalAt<Instant>? in
            guard case .signal(let signal, let at) = occurrence else { return nil }
            return SignalAt(signal: signal, at: at, offset: session.elapsed(at: at))
        }
        let upcoming = controller.upcomingSignals(limit: 6)
        if !fired.isEmpty || upcoming != announced {
            events.append(.signals(fired: fired, upcoming: upcoming))
            announced = upcoming
        }
        return reported
    }

    /// The class starts, when one started this turn or the next one moved.
    private mutating func classStartsEvent(_ scheduled: [Occurrence<Instant>], at now: Instant, wallTime wall: WallTime) -> LoopEvent<Instant>? {
        let started = scheduled.lazy.compactMap { occurrence -> Instant? in
            if case .action(.start, let at) = occurrence { at } else { nil }
        }.first
        let next = controller.nextClassStart(at: now, wallTime: wall)
        guard started != nil || next != announcedClass else { return nil }
        announcedClass = next
        return .classStarts(started: started, next: next)
    }

    /// Notes the stop instant; whether `now` reached it.
    private mutating func stopReached(at now: Instant) -> Bool {
        let session = controller.session
        if session.state(at: now) == .finished {
            // The exact finish instant while the anchor is known; else when seen.
            finishedAt = finishedAt ?? session.program.total.flatMap { session.instant(atElapsed: $0) } ?? now
        } else {
            finishedAt = nil
        }
        switch stop {
        case .at(let instant): stopAt = instant
        case .afterFinish(let grace): stopAt = finishedAt.map { $0.advanced(by: grace) }
        case .never: stopAt = nil
        }
        return stopAt.map { now >= $0 } ?? false
    }

    /// When the loop next wakes, and whether the power check runs first.
    struct Wake: Sendable, Equatable {
        /// nil: only an input wakes the loop.
        var deadline: Instant?
        /// Check the display's power now (`checked` takes its outcome and moves `deadline`).
        var checksPower = false
    }

    /// After the turn's commits: the earliest of the next picture change, signal or long
    /// press, scripted input, display retry, stop instant and power check; nil: the loop
    /// ends (nothing scheduled and `endWhenIdle`). The power check runs now if it is due, or
    /// early if the next wake-up comes after it falls due but within an interval (so this
    /// turn carries it and no wake-up of its own is needed), also while a panel is offline
    /// (it checks the others); else the loop wakes for it when it is due.
    mutating func wake(at now: Instant, wallTime wall: WallTime) -> Wake? {
        var deadline = nextChange
        for candidate in [nextScripted < script.count ? script[nextScripted].at : nil, retryAt, stopAt] {
            if let candidate, deadline.map({ candidate < $0 }) ?? true { deadline = candidate }
        }
        if deadline == nil, endWhenIdle { return nil }
        if let due = checkDue, let interval = checkInterval,
           due <= now || deadline.map({ due < $0 && $0 <= now.advanced(by: interval) }) == true {
            return Wake(deadline: deadline, checksPower: true)
        }
        return sleeping(until: deadline, at: now, wallTime: wall)
    }

    /// The power check `wake` asked for ran at `now`; `retryAfter`: a panel did not answer.
    mutating func checked(retryAfter: Duration?, planned: Wake, at now: Instant, wallTime wall: WallTime) -> Wake {
        var deadline = planned.deadline
        if let retry = retryAfter {
            // A retry already pending keeps its backoff; an outage found here starts one.
            let at = retryAt ?? now.advanced(by: retry)
            retryAt = at
            deadline = min(deadline ?? at, at)
        } else {
            retryAt = nil
        }
        // From this check, so an early one never stretches the gap to the next.
        checkDue = checkInterval.map { now.advanced(by: $0) }
        return sleeping(until: deadline, at: now, wallTime: wall)
    }

    /// The wait until `deadline` or the power check, whichever is first, with the frame due
    /// then precomputed.
    private mutating func sleeping(until planned: Instant?, at now: Instant, wallTime wall: WallTime) -> Wake {
        var deadline = planned
        if let due = checkDue, deadline.map({ due < $0 }) ?? true { deadline = due }
        if let deadline {
            let due = controller.viewAhead(at: deadline, wallTime: wall.advanced(by: now.duration(to: deadline)))
            precomputed = (deadline, due.nextDeadline, PlannedFrame(face: due.face, status: due.status))
        }
        return Wake(deadline: deadline)
    }

    /// Inputs taken but not yet turned when the loop stopped (a command acknowledged just
    /// before a shutdown): applied, so the final session includes them; the actions they caused.
    mutating func applyLate(_ inputs: [LoopInput<Instant>]) -> [Action] {
        var actions: [Action] = []
        for input in inputs.sorted(by: { $0.at < $1.at }) {
            for case .action(let action, _) in controller.apply(input) { actions.append(action) }
        }
        return actions
    }
}
