/// A session handed over whole by another clock (the control socket's `adopt`,
/// docs/control-protocol.md): its program, running time before the last pause, and for a
/// running one the anchor as a CLOCK_REALTIME instant, mapped once onto this clock's
/// monotonic instants. Pure; the service reads the clocks.
public enum SessionAdoption {
    /// The latest anchor accepted, ahead of this clock's wall time: 24 h (a group start
    /// scheduled a little ahead, or a member's wall clock slightly behind, is fine; more is a
    /// broken clock).
    public static let latestAnchorAhead: Duration = .seconds(24 * 3600)

    /// An anchor at most this far in the past rings what the originating clock rang for the
    /// transition (a group START rings the start bell on every member); an older one (a member
    /// joining late) rings nothing for what already passed.
    public static let ringWindow: Duration = .seconds(1)

    /// The session running since `anchorRealtime` (or paused/ready when `nil`) on a clock
    /// reading `now` while CLOCK_REALTIME read `realtime` (read back to back):
    /// anchor = now − (realtime − anchorRealtime). Clamped as `ResumeDecision` does: the time
    /// since the anchor is cut so the total stays within `TimeLimits.maximumElapsed`, so no
    /// instant is moved further and no later arithmetic overflows (a timed program long over
    /// is simply finished).
    public static func session<Instant>(program: Program, elapsedBefore: Duration, anchorRealtime: Duration?,
                                        realtime: Duration, now: Instant) -> Session<Instant> {
        let before = min(max(elapsedBefore, .zero), TimeLimits.maximumElapsed)
        guard let anchorRealtime else { return Session(program: program, elapsedBefore: before) }
        let since = min(max(realtime - anchorRealtime, .zero - latestAnchorAhead), TimeLimits.maximumElapsed - before)
        return Session(program: program, elapsedBefore: before, anchor: now.advanced(by: .zero - since))
    }
}

extension Controller {
    /// Replaces the session by `adopted` (from `SessionAdoption.session`) at `now`, never
    /// before what was already processed. Held buttons are forgotten (as on `restore`), the
    /// `start_at` slot stays this clock's own, AMRAP rounds counted are kept only while the
    /// same program goes on (not reset, nor started anew).
    ///
    /// Signals: a running session whose anchor is at most `SessionAdoption.ringWindow` in the
    /// past rings what its originator rang for the transition — from a start (elapsed-before
    /// 0) every signal from the session's start, from a skip those at the new phase start; a
    /// resume of the paused session this clock holds rings, as a resume does, nothing already
    /// rung before the pause; a move back in the round this clock runs (another member's
    /// `back`, or an `adjust` that adds time) rings nothing, as on that member. Otherwise (an older anchor, paused, ready) nothing already
    /// passed rings, as after `restore`; for the run this clock already runs with only its
    /// anchor moved (a correction of the group's time), nothing rings twice, and the signals a
    /// move forward passes are named in the adopt's note.
    public mutating func adopt(_ adopted: Session<Instant>, at instant: Instant, note: String) -> [Occurrence<Instant>] {
        var out = advance(to: instant)
        let now = processedUntil ?? instant
        let previous = session
        let sameProgram = previous.program.name == adopted.program.name
        let previousState = previous.state(at: now)
        let wasUnderway = sameProgram && (previousState == .running || previousState == .paused)
        session = adopted
        session.classSlot = previous.classSlot
        trackers = [:]
        lastActivity = now
        let before = adopted.elapsedBefore
        // A reset or a new start begins the count again; a back to the round's start does not.
        if !sameProgram || (before == .zero && (adopted.anchor == nil || !wasUnderway)) { countedRounds = 0 }
        if let anchor = adopted.anchor, anchor.duration(to: now) <= SessionAdoption.ringWindow {
            let resumed = sameProgram && previous.anchor == nil && before > .zero && previous.elapsedBefore == before
            // Of a live change to the round this clock was running (a skip, an adjust, a back),
            // only a move forward rings what it lands on, as on the clock where it was made.
            let movedBack = wasUnderway && !resumed && before <= previous.elapsed(at: now)
            signalCursor = program.firstSignalIndex(atOrAfter: resumed || movedBack ? before + .nanoseconds(1) : before)
        } else {
            let elapsed = adopted.elapsed(at: now)
            let cursor = elapsed == .zero ? 0 : program.firstSignalIndex(atOrAfter: elapsed + .nanoseconds(1))
            // The run this clock runs, moved on its clock (the group's time corrected): the
            // bell cursor never goes back, and what a move forward passes is named.
            let remapped = sameProgram && previousState == .running && adopted.anchor != nil && before == previous.elapsedBefore
                && previous.elapsed(at: now) - elapsed <= SessionAdoption.ringWindow
            if remapped, cursor > signalCursor {
                let passed = program.signals[signalCursor..<cursor]
                out.append(.action(.adopt(note + "; passed without ringing: "
                                          + passed.map { "\($0.signal.rawValue) at \(SessionAdoption.text($0.offset))" }.joined(separator: ", ")), at: now))
                signalCursor = cursor
                return out + advance(to: now)
            }
            signalCursor = remapped ? max(signalCursor, cursor) : cursor
        }
        out.append(.action(.adopt(note), at: now))
        return out + advance(to: now)
    }
}

extension SessionAdoption {
    /// A session's running time as `m:ss.t` (log lines).
    static func text(_ elapsed: Duration) -> String {
        let tenths = elapsed.components.seconds * 10 + elapsed.components.attoseconds / 100_000_000_000_000_000
        let seconds = tenths / 10
        return "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60).\(tenths % 10)"
    }
}
