/// Something the controller did, for the log, the buzzer and the frames file.
public enum Occurrence<Instant: InstantProtocol & Sendable>: Sendable, Hashable where Instant.Duration == Duration {
    /// A buzzer signal whose ideal instant is `at`.
    case signal(Signal, at: Instant)
    /// A command that changed the session.
    case action(Action, at: Instant)
}

/// Commands, from buttons or elsewhere; logged as `Action`s when they change something.
public enum Action: Sendable, Hashable, CustomStringConvertible {
    case start, resume, restart, pause, reset
    /// To the start of the next phase (MODE held while running or paused; the remote's `skip`).
    case skip
    /// A completed round counted (MODE while an AMRAP's work phase runs; the round panel
    /// shows the count).
    case countRound
    /// The current phase's remaining time changed by `seconds` (the remote's `adjust`).
    case adjust(seconds: Int)
    /// To the start of the current phase, or the previous one just after a phase started
    /// (the remote's `back`).
    case back
    case program(String)
    /// The session replaced by another clock's (the control socket's `adopt`);
    /// the text says which and how it was mapped, for the log line.
    case adopt(String)
    public var description: String {
        switch self {
        case .start: "start"
        case .resume: "resume"
        case .restart: "restart"
        case .pause: "pause"
        case .reset: "reset"
        case .skip: "skip"
        case .countRound: "round counted"
        case .adjust(let seconds): "adjust \(seconds > 0 ? "+" : "")\(seconds) s"
        case .back: "back"
        case .program(let name): "program \(name)"
        case .adopt(let note): "adopt \(note)"
        }
    }
}

/// The clock's whole behaviour as a pure value: the session, the button gestures and
/// their meaning, buzzer signals, the face, and when anything next happens.
/// The service only feeds it instants and button edges and carries out what it returns.
public struct Controller<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    public internal(set) var session: Session<Instant>
    /// Programs MODE cycles through (`replaceCatalog` when the saved programs change).
    public internal(set) var catalog: [Program]
    /// Boards without a MODE button cycle programs with a long STOP while ready.
    public let hasModeButton: Bool
    /// How long a button must be held for a long press.
    public let longPress: Duration
    public var cadence: Cadence
    /// Digits of the time and round panels the faces are laid out for (the board's).
    public var panelWidths = PanelWidths()
    /// Day/night dimming by local wall time.
    public var brightness: BrightnessSchedule
    /// After this long ready with no button pressed, the panels show the wall clock until
    /// the next press. `nil`: never.
    public var idleClockAfter: Duration?
    /// `start_at`: times of day at which a ready session starts by itself (`ClassStarts`).
    public var classStarts: ClassStarts?
    /// The latest wall time the schedule has seen: no slot at or before it starts (again).
    public internal(set) var classStartsSeenUntil: WallTime?
    /// Whether the schedule has had its first look at the wall time (before it, no slot is
    /// due: a clock coming up after a slot does not start that class late).
    var classStartsArmed = false
    /// Last button edge or command: the start of the idle time.
    var lastActivity: Instant?
    /// A setting the clock could not take, shown on the ready panels until `noticeSeen`.
    public var setupNotice: SetupNotice?
    /// Whether a button or command has come since the clock started: the notice gives the
    /// panels back.
    public internal(set) var noticeSeen = false
    /// The phone remote's PIN, as the gateway last gave it (`showPIN`): the gesture shows it.
    public internal(set) var remotePIN: String?
    /// The PIN on the panels until its `until`, while idle; any press or command ends it.
    public internal(set) var pinDisplay: PinDisplay<Instant>?
    var trackers: [Button: ButtonTracker<Instant>] = [:]
    private var stopPressedWhileIdle = false
    /// MODE went down while running or paused: held, it skips; released early in an AMRAP
    /// work phase, it counts a round. Decided at press-down, like STOP.
    private var modePressedWhileActive = false
    /// Rounds counted with MODE in this session (AMRAP); back to 0 on start, reset, program.
    public internal(set) var countedRounds = 0
    /// Index into `program.signals` of the next signal to fire.
    var signalCursor = 0
    /// Latest instant processed; events before it are treated as happening at it.
    public private(set) var processedUntil: Instant?

    public init(program: Program, catalog: [Program] = Presets.cycle, hasModeButton: Bool = true,
                longPress: Duration = .seconds(2), cadence: Cadence = .seconds,
                brightness: BrightnessSchedule = BrightnessSchedule(), idleClockAfter: Duration? = nil) {
        self.session = Session(program: program)
        self.brightness = brightness
        self.idleClockAfter = idleClockAfter
        self.catalog = catalog.isEmpty ? [program] : catalog
        self.hasModeButton = hasModeButton
        self.longPress = longPress
        self.cadence = cadence
    }

    public var program: Program { session.program }

    // MARK: Inputs

    /// Processes everything due up to `event.at`, then the event itself.
    public mutating func handle(_ event: ButtonEvent<Instant>) -> [Occurrence<Instant>] {
        var out = advance(to: event.at)
        let at = max(event.at, processedUntil ?? event.at)
        lastActivity = at
        noticeSeen = true
        var tracker = trackers[event.button] ?? ButtonTracker()
        switch event.edge {
        case .release:
            let early = tracker.pressedAt != nil && !tracker.longPressFired
            tracker.release()
            trackers[event.button] = tracker
            if early, event.button == .mode { out += modeReleasedEarly(at: at) }
        case .press:
            let isNew = tracker.press(at: at)
            trackers[event.button] = tracker
            pinDisplay = nil
            if isNew, event.button == .start, pinGesture(at: at) { return out }
            if isNew { out += pressed(event.button, at: at) }
        }
        return out
    }

    /// `button` held for the long press, at one instant (the control socket's `hold-stop`):
    /// its press-down, its long press and its release, as a hold that long does them, without
    /// the wait. Nothing if the button is already held down.
    public mutating func hold(_ button: Button, at instant: Instant) -> [Occurrence<Instant>] {
        guard trackers[button]?.pressedAt == nil else { return advance(to: instant) }
        var out = handle(ButtonEvent(button, .press, at: instant))
        trackers[button]?.markLongPressFired()
        out += longPressed(button, at: processedUntil ?? instant)
        return out + handle(ButtonEvent(button, .release, at: instant))
    }

    /// Fires, in time order, the long presses and signals due up to `now`.
    public mutating func advance(to now: Instant) -> [Occurrence<Instant>] {
        var out: [Occurrence<Instant>] = []
        while true {
            let longDue = nextLongPress().flatMap { $0.at <= now ? $0 : nil }
            let signalDue = nextSignalInstant().flatMap { $0 <= now ? $0 : nil }
            if let long = longDue, signalDue.map({ long.at <= $0 }) ?? true {
                trackers[long.button]?.markLongPressFired()
                out += longPressed(long.button, at: long.at)
            } else if let signalAt = signalDue {
                out.append(.signal(program.signals[signalCursor].signal, at: signalAt))
                signalCursor += 1
            } else {
                break
            }
        }
        if processedUntil.map({ $0 < now }) ?? true { processedUntil = now }
        if lastActivity == nil { lastActivity = now }
        return out
    }

    /// Carries out a command directly (not via a button).
    public mutating func perform(_ action: Action, at now: Instant) -> [Occurrence<Instant>] {
        var out = advance(to: now)
        let state = session.state(at: now)
        var changed: Bool
        // A skip, or an adjust that takes the phase's whole remaining time: the end's signals sound.
        var endsPhase = action == .skip
        switch action {
        case .start, .restart:
            changed = session.start(at: now)
            if changed, state != .paused { signalCursor = 0; countedRounds = 0 }
        case .resume: changed = session.resume(at: now)
        case .pause: changed = session.pause(at: now)
        case .reset:
            changed = session.reset()
            signalCursor = 0
            countedRounds = 0
            // A MODE hold that began before the reset skips nothing.
            modePressedWhileActive = false
        case .skip:
            changed = session.skipPhase(at: now)
            if changed { signalCursor = program.firstSignalIndex(atOrAfter: session.elapsed(at: now)) }
        case .adjust(let seconds):
            let phaseEnd = session.snapshot(at: now).flatMap { program.end(ofPhase: $0.phaseIndex) }
            changed = session.adjust(by: .seconds(seconds), at: now)
            endsPhase = changed && session.elapsed(at: now) == phaseEnd
            if changed { aimSignals(at: now, endedPhase: endsPhase) }
        case .back:
            changed = session.back(at: now)
            if changed { aimSignals(at: now, endedPhase: false) }
        case .countRound:
            changed = program.countsRounds && session.state(at: now) == .running
                && session.snapshot(at: now)?.phase.kind == .work
            if changed { countedRounds += 1 }
        case .program(let name):
            guard let next = catalog.first(where: { $0.name == name }) ?? (try? ProgramSpec.parse(name)) else { return out }
            select(next)
            changed = true
        case .adopt:
            // Not a command: `adopt(_:at:note:)` replaces the session.
            return out
        }
        if changed {
            lastActivity = now
            noticeSeen = true
            let logged: Action = action == .start ? (state == .paused ? .resume : state == .finished ? .restart : .start) : action
            out.append(.action(logged, at: now))
            if endsPhase, state == .paused { out += signalsOfPausedSkip(at: now) }
            out += advance(to: now)
        }
        return out
    }

    /// The next signal after a live edit (`adjust`, `back`): an adjust that ended its phase
    /// fires that end's signals, as a skip does; any other edit fires none at the instant it
    /// lands on (a phase's start signal is not sounded again).
    private mutating func aimSignals(at now: Instant, endedPhase: Bool) {
        let elapsed = session.elapsed(at: now)
        signalCursor = program.firstSignalIndex(atOrAfter: endedPhase ? elapsed : elapsed + .nanoseconds(1))
    }

    /// The signals of the boundary a paused skip landed on: a paused session has no anchor to
    /// time them by, so they sound at the skip, as a running skip's do, and not again later.
    private mutating func signalsOfPausedSkip(at now: Instant) -> [Occurrence<Instant>] {
        let elapsed = session.elapsed(at: now)
        var out: [Occurrence<Instant>] = []
        while signalCursor < program.signals.count, program.signals[signalCursor].offset == elapsed {
            out.append(.signal(program.signals[signalCursor].signal, at: now))
            signalCursor += 1
        }
        return out
    }

    /// The `start_at` high-water mark saved before a restart (no slot at or before it starts).
    public mutating func restoreClassStartsSeen(_ wall: WallTime) {
        if classStartsSeenUntil.map({ $0 < wall }) ?? true { classStartsSeenUntil = wall }
    }

    mutating func setClassSlot(_ slot: WallTime) { session.classSlot = slot }

    /// Replaces the session with a restored one (persistence) at `now`. Signals before
    /// the restored running time are not replayed; held buttons are forgotten.
    public mutating func restore(_ restored: Session<Instant>, at now: Instant) {
        session = restored
        if let slot = restored.classSlot { restoreClassStartsSeen(slot) }
        trackers = [:]
        let elapsed = restored.elapsed(at: now)
        signalCursor = elapsed == .zero ? 0 : program.firstSignalIndex(atOrAfter: elapsed + .nanoseconds(1))
    }

    // MARK: Button meaning

    private var isIdle: Bool { program.kind == .wallClock || processedUntil.map { session.state(at: $0) == .ready } ?? true }

    private mutating func pressed(_ button: Button, at now: Instant) -> [Occurrence<Instant>] {
        switch button {
        case .start:
            // Starts, resumes or restarts; nothing while running.
            guard program.kind == .intervals, session.state(at: now) != .running else { return [] }
            return perform(.start, at: now)
        case .stop:
            stopPressedWhileIdle = isIdle
            switch session.state(at: now) {
            case .running: return perform(.pause, at: now)
            case .paused, .finished: return perform(.reset, at: now)
            case .ready: return []
            }
        case .mode:
            let state = session.state(at: now)
            modePressedWhileActive = state == .running || state == .paused
            return isIdle ? cycleProgram(at: now) : []
        }
    }

    /// MODE released before the long press: in an AMRAP's running work phase, one round
    /// counted; anything else: nothing (a short MODE press never interrupts a round).
    private mutating func modeReleasedEarly(at now: Instant) -> [Occurrence<Instant>] {
        guard modePressedWhileActive, program.countsRounds else { return [] }
        modePressedWhileActive = false
        return perform(.countRound, at: now)
    }

    private mutating func longPressed(_ button: Button, at now: Instant) -> [Occurrence<Instant>] {
        if button == .mode {
            let state = session.state(at: now)
            guard modePressedWhileActive, state == .running || state == .paused else { return [] }
            modePressedWhileActive = false
            return perform(.skip, at: now)
        }
        guard button == .stop else { return [] }
        if stopPressedWhileIdle {
            return hasModeButton ? [] : cycleProgram(at: now)
        }
        return perform(.reset, at: now)
    }

    private mutating func cycleProgram(at now: Instant) -> [Occurrence<Instant>] {
        let index = catalog.firstIndex { $0.name == program.name }.map { ($0 + 1) % catalog.count } ?? 0
        select(catalog[index])
        return [.action(.program(catalog[index].name), at: now)]
    }

    /// MODE cycles `next` from now on (programs saved or deleted while the clock runs). A
    /// ready clock showing a program of a name in `next` takes its new version; one showing a
    /// program that left the catalog (deleted) shows the catalog's first. A session underway
    /// keeps the program it started with.
    public mutating func replaceCatalog(_ next: [Program], at now: Instant) -> [Occurrence<Instant>] {
        let out = advance(to: now)
        let wasListed = catalog.contains { $0.name == program.name }
        catalog = next.isEmpty ? [program] : next
        let at = processedUntil ?? now
        guard session.state(at: at) == .ready else { return out }
        let updated = catalog.first { $0.name == program.name } ?? (wasListed ? catalog[0] : program)
        guard updated != program else { return out }
        select(updated)
        return out + [.action(.program(updated.name), at: at)]
    }

    mutating func select(_ next: Program) {
        let slot = session.classSlot
        session = Session(program: next)
        session.classSlot = slot
        signalCursor = 0
        countedRounds = 0
        modePressedWhileActive = false
    }

    private func nextLongPress() -> (button: Button, at: Instant)? {
        // No button pressed since the start: nothing to look up (every turn).
        guard !trackers.isEmpty else { return nil }
        var best: (button: Button, at: Instant)?
        for button in Button.allCases {
            if let at = trackers[button]?.longPressDeadline(threshold: longPress), best.map({ at < $0.at }) ?? true {
                best = (button, at)
            }
        }
        return best
    }

    /// The next `limit` signals the session fires by itself, with their instants: what a
    /// speaker schedules ahead of the boundary. Empty unless the session runs.
    public func upcomingSignals(limit: Int) -> [SignalAt<Instant>] {
        var out: [SignalAt<Instant>] = []
        var index = signalCursor
        while index < program.signals.count, out.count < limit,
              let at = session.instant(atElapsed: program.signals[index].offset) {
            out.append(SignalAt(signal: program.signals[index].signal, at: at, offset: program.signals[index].offset))
            index += 1
        }
        return out
    }

    private func nextSignalInstant() -> Instant? {
        guard signalCursor < program.signals.count else { return nil }
        return session.instant(atElapsed: program.signals[signalCursor].offset)
    }

    // MARK: Output

    /// The instant from which a ready session shows the wall clock; `nil` if it will not.
    private var idleClockFrom: Instant? {
        guard let idleClockAfter, classStarts == nil, program.kind == .intervals, let since = lastActivity ?? processedUntil,
              session.anchor == nil, session.elapsedBefore == .zero else { return nil }
        return since.advanced(by: idleClockAfter)
    }

    /// What the panels show at `now`; `wallTime` is the local wall time at `now`.
    public func face(at now: Instant, wallTime: WallTime) -> Face {
        picture(at: now, wallTime: wallTime, snapshot: session.snapshot(at: now)).face
    }

    /// The first instant after `now` at which the face changes by itself.
    public func nextFaceChange(after now: Instant, wallTime: WallTime) -> Instant? {
        picture(at: now, wallTime: wallTime, snapshot: session.snapshot(at: now)).change
    }

    /// When the loop must wake next: a face change, a signal or a long press.
    public func nextDeadline(after now: Instant, wallTime: WallTime) -> Instant? {
        deadline(faceChange: nextFaceChange(after: now, wallTime: wallTime))
    }

    /// `face(at:wallTime:)`, `status(at:)` and `nextDeadline(after:wallTime:)` at once, from
    /// one snapshot of the session and one face: what the render loop asks every turn
    /// (each of the three alone derives the snapshot again, and the deadline builds the face
    /// again).
    public func view(at now: Instant, wallTime: WallTime) -> ControllerView<Instant> {
        let snapshot = session.snapshot(at: now)
        let picture = picture(at: now, wallTime: wallTime, snapshot: snapshot)
        return ControllerView(face: picture.face, status: status(of: snapshot),
                              nextDeadline: deadline(faceChange: picture.change))
    }

    /// `view(at:wallTime:)` of a copy advanced to `instant` (`advance(to:)`), as the loop
    /// precomputes the frame due at its next deadline. Without a long press pending and once
    /// any instant was processed, advancing can only fire signals, which change neither the
    /// face nor the status: then the view is taken from `self`, without copying the whole
    /// controller every turn. `nextDeadline` is that of `self` in that case.
    public func viewAhead(at instant: Instant, wallTime: WallTime) -> ControllerView<Instant> {
        if lastActivity != nil, nextLongPress() == nil, classStarts == nil { return view(at: instant, wallTime: wallTime) }
        var ahead = self
        _ = ahead.advance(to: instant)
        _ = ahead.startOnSchedule(at: instant, wallTime: wallTime)
        return ahead.view(at: instant, wallTime: wallTime)
    }

    /// The face at `now` and the first instant after `now` at which it changes by itself;
    /// `snapshot` is `session.snapshot(at: now)`.
    private func picture(at now: Instant, wallTime: WallTime, snapshot: Snapshot?) -> (face: Face, change: Instant?) {
        var face: Face
        // Plain optionals, no array of them: called every turn of the render loop, where an
        // `[Instant?]` costs an allocation and runtime metadata look-ups.
        var change: Instant?
        let idleFrom = idleClockFrom
        if let snapshot, (idleFrom.map { now < $0 } ?? true) {
            let built = FaceBuilder.face(program: program, snapshot: snapshot, cadence: cadence, countedRounds: countedRounds,
                                         widths: panelWidths)
            face = built.face
            change = earliest(built.changesIn.map { now.advanced(by: $0) }, idleFrom)
            if snapshot.state == .ready, let countdown = classCountdown(at: now, wallTime: wallTime) {
                face.time = PanelText(countdown.text)
                change = earliest(change, countdown.change)
            }
        } else {
            // The instant of the next change does not depend on the program (only its label).
            let clock = FaceBuilder.clockFace(program: program.kind == .wallClock ? program : .wallClock, wallTime: wallTime, cadence: cadence,
                                              widths: panelWidths)
            face = clock.face
            change = now.advanced(by: wallTime.duration(to: clock.next))
        }
        face.brightness = brightness.level(at: wallTime)
        if let setupNotice, !noticeSeen, snapshot?.state == .ready {
            face = setupNotice.face(brightness: face.brightness, widths: panelWidths)
        }
        if let pinDisplay, now < pinDisplay.until, snapshot == nil || snapshot?.state == .ready {
            let shown = pinDisplay.face(at: now, widths: panelWidths, brightness: face.brightness)
            face = shown.face
            change = earliest(change, shown.change)
        }
        if let switchAt = brightness.nextSwitch(after: wallTime) {
            change = earliest(change, now.advanced(by: wallTime.duration(to: switchAt)))
        }
        return (face, change)
    }

    /// The earliest of `faceChange`, the next signal and the next long press.
    private func deadline(faceChange: Instant?) -> Instant? {
        earliest(earliest(faceChange, nextSignalInstant()), nextLongPress()?.at)
    }

    /// The earlier of two optional instants; nil only if both are.
    private func earliest(_ a: Instant?, _ b: Instant?) -> Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return b < a ? b : a
    }

    /// State, phase and round for logs and the frames file.
    public func status(at now: Instant) -> Status {
        status(of: session.snapshot(at: now))
    }

    private func status(of snapshot: Snapshot?) -> Status {
        guard let s = snapshot else {
            return Status(state: .clock, phase: .clock, round: 0, rounds: 0, program: program.name)
        }
        return Status(state: Status.State(s.state), phase: Status.Phase(s.phase.kind), round: s.round, rounds: s.rounds,
                      program: program.name, warning: s.isInWarningWindow(of: program))
    }
}
