/// A session as persisted across restarts: the program spec, the running time before the
/// last pause, and for a running session its anchor on two clocks — CLOCK_BOOTTIME of this
/// boot (with the boot id) for an exact resume after a service restart, and CLOCK_REALTIME
/// for a resume by wall time after a reboot. Pure data; the file format lives in the service.
public struct SavedSession: Sendable, Hashable {
    public enum RunState: String, Sendable, Hashable, CaseIterable {
        case ready, running, paused
    }
    /// The program spec or custom program name (`Program.name`).
    public var program: String
    public var runState: RunState
    public var elapsedBefore: Duration
    /// `/proc/sys/kernel/random/boot_id` of the boot that wrote the state.
    public var bootID: String
    /// CLOCK_BOOTTIME reading of the anchor; only for a running session.
    public var anchorBoottime: Duration?
    /// CLOCK_REALTIME reading (since the Unix epoch) of the anchor; only for a running session.
    public var anchorRealtime: Duration?
    /// CLOCK_REALTIME when the state was written.
    public var savedRealtime: Duration
    /// `Session.classSlot`: the last `start_at` slot started, local wall time since the epoch.
    public var classSlot: Duration?

    /// The longest running time a saved session may hold, before and after mapping its
    /// anchor: `TimeLimits.maximumElapsed` (100 years), the bound of every session, so a
    /// stopwatch left running is restored as it is and no instant arithmetic can overflow.
    /// A larger `elapsed_before_ns` makes the state file corrupt; a longer time since the
    /// anchor is clamped to it.
    public static let longestElapsed: Duration = TimeLimits.maximumElapsed

    public init(program: String, runState: RunState, elapsedBefore: Duration, bootID: String,
                anchorBoottime: Duration? = nil, anchorRealtime: Duration? = nil, savedRealtime: Duration) {
        self.program = program
        self.runState = runState
        self.elapsedBefore = elapsedBefore
        self.bootID = bootID
        self.anchorBoottime = anchorBoottime
        self.anchorRealtime = anchorRealtime
        self.savedRealtime = savedRealtime
    }

    /// Captures `session` at `now`, given this boot's id and the CLOCK_BOOTTIME and
    /// CLOCK_REALTIME readings taken at `now`. The anchor is mapped onto both clocks by
    /// its distance from `now`.
    public init<Instant>(_ session: Session<Instant>, at now: Instant, bootID: String, boottime: Duration, realtime: Duration) {
        let sinceAnchor = session.anchor.map { $0.duration(to: now) }
        self.init(program: session.program.name,
                  runState: sinceAnchor != nil ? .running : session.elapsedBefore == .zero ? .ready : .paused,
                  elapsedBefore: session.elapsedBefore, bootID: bootID,
                  anchorBoottime: sinceAnchor.map { boottime - $0 }, anchorRealtime: sinceAnchor.map { realtime - $0 },
                  savedRealtime: realtime)
        classSlot = session.classSlot?.sinceEpoch
    }
}

/// The system at start-up, as the resume decision needs it.
public struct ResumeContext: Sendable, Hashable {
    public var bootID: String
    /// CLOCK_BOOTTIME now.
    public var boottime: Duration
    /// CLOCK_REALTIME now, since the Unix epoch.
    public var realtime: Duration
    /// Whether the kernel says the system clock is synchronized (see `ClockSync`).
    public var clockSynchronized: Bool
    /// Config `[resume] after_reboot`.
    public var resumeAfterReboot: Bool

    public init(bootID: String, boottime: Duration, realtime: Duration, clockSynchronized: Bool, resumeAfterReboot: Bool) {
        self.bootID = bootID
        self.boottime = boottime
        self.realtime = realtime
        self.clockSynchronized = clockSynchronized
        self.resumeAfterReboot = resumeAfterReboot
    }
}

/// How a saved session came back.
public enum ResumeOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Same boot: resumed exactly, as if the service had never stopped.
    case sameBoot
    /// After a reboot, a running session resumed by wall time.
    case wallTime
    /// After a reboot, a paused session resumed paused (no clock needed).
    case pausedAcrossReboot
    /// Came up ready with the saved program, for this reason.
    case ready(String)

    public var description: String {
        switch self {
        case .sameBoot: "resumed exactly (same boot)"
        case .wallTime: "resumed by wall time after a reboot"
        case .pausedAcrossReboot: "resumed paused after a reboot"
        case .ready(let why): "ready with the last program: \(why)"
        }
    }
}

public enum ResumeDecision {
    /// Decides how `saved` (whose program resolved to `program`) comes back at `now` on the
    /// service's monotonic clock, given the system readings in `context`. Pure.
    ///
    /// - same boot: running → anchor = now − (boottime − anchorBoottime); paused → paused.
    /// - other boot, `after_reboot = false` → ready.
    /// - other boot, paused → paused (the running time needs no clock).
    /// - other boot, running → by wall time (anchor = now − (realtime − anchorRealtime)) only
    ///   if the clock is synchronized and has not gone back behind the saved instants; else ready.
    ///
    /// Any saved values are safe: a saved running time beyond `SavedSession.longestElapsed`
    /// comes back ready, and the time since the anchor is clamped so that the total stays
    /// within it (a timed program long over shows DONE; a stopwatch's panel tops
    /// out at 99:59 anyway): no instant is moved further and no later arithmetic overflows.
    public static func decide<Instant>(_ saved: SavedSession, program: Program, context: ResumeContext,
                                       now: Instant) -> (session: Session<Instant>, outcome: ResumeOutcome) {
        let ready = Session<Instant>(program: program)
        func readyBecause(_ why: String) -> (Session<Instant>, ResumeOutcome) { (ready, .ready(why)) }
        guard saved.elapsedBefore >= .zero, saved.elapsedBefore <= SavedSession.longestElapsed else {
            return readyBecause("the saved running time is out of range")
        }
        let paused = Session<Instant>(program: program, elapsedBefore: saved.elapsedBefore)
        /// The session running since `anchor` on a clock reading `reading` now (the anchor
        /// not after it), the total running time clamped to `SavedSession.longestElapsed`.
        func running(anchor: Duration, reading: Duration) -> Session<Instant> {
            let since = min(reading - anchor, SavedSession.longestElapsed - saved.elapsedBefore)
            return Session(program: program, elapsedBefore: saved.elapsedBefore, anchor: now.advanced(by: .zero - since))
        }

        switch saved.runState {
        case .ready:
            return readyBecause("it was ready")
        case .paused where saved.bootID == context.bootID:
            return (paused, .sameBoot)
        case .running where saved.bootID == context.bootID:
            guard let anchor = saved.anchorBoottime, anchor <= context.boottime else {
                return readyBecause("the saved anchor lies after CLOCK_BOOTTIME now")
            }
            return (running(anchor: anchor, reading: context.boottime), .sameBoot)
        default:
            break
        }
        guard context.resumeAfterReboot else { return readyBecause("rebooted and [resume] after_reboot = false") }
        if saved.runState == .paused { return (paused, .pausedAcrossReboot) }
        guard context.clockSynchronized else { return readyBecause("rebooted and the system clock is not synchronized") }
        guard let anchor = saved.anchorRealtime, anchor <= context.realtime, saved.savedRealtime <= context.realtime else {
            return readyBecause("rebooted and the wall clock is behind the saved state")
        }
        return (running(anchor: anchor, reading: context.realtime), .wallTime)
    }
}
