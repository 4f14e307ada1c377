import ControlProtocol
import Platform
import RoundClockCore
#if canImport(Glibc)
import Glibc
#endif

/// The loop's clock and CLOCK_REALTIME, read back to back: how a session's anchor becomes a
/// wall-clock instant to share, and an adopted one an instant of the loop's clock
/// (docs/control-protocol.md "The session").
public struct SessionClocks<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    /// The loop clock's now and CLOCK_REALTIME (since the Unix epoch), read back to back.
    public let read: @Sendable () -> (now: Instant, realtime: Duration)

    public init(read: @escaping @Sendable () -> (now: Instant, realtime: Duration)) { self.read = read }

    /// Real time: `clock.now`, then clock_gettime(CLOCK_REALTIME).
    public static func system<C: Clock & Sendable>(_ clock: C) -> SessionClocks where C.Instant == Instant {
        SessionClocks { (clock.now, SystemReadings.clockReading(CLOCK_REALTIME)) }
    }

    /// Virtual time: CLOCK_REALTIME is `realtimeAtStart` at `start` and moves with `clock`
    /// (as `SystemReadings.advancing` does for the state file), so every instant is exact.
    public static func advancing<C: Clock & Sendable>(with clock: C, from start: Instant, realtimeAtStart: Duration) -> SessionClocks
    where C.Instant == Instant {
        SessionClocks {
            let now = clock.now
            return (now, realtimeAtStart + start.duration(to: now))
        }
    }
}

extension SessionShare {
    /// `session` as shared, given the clocks read once now (`SessionClocks.read`): its program
    /// name, run state, elapsed-before, and for a running one the anchor on CLOCK_REALTIME,
    /// realtime − (now − anchor). `adopted` is `nil` (a local change).
    public init<Instant>(_ session: Session<Instant>, clocks: (now: Instant, realtime: Duration)) {
        let run: Run = session.anchor != nil ? .running : session.elapsedBefore == .zero ? .ready : .paused
        self.init(program: session.program.name, run: run, elapsedBeforeNanoseconds: session.elapsedBefore.wholeNanoseconds,
                  anchorRealtimeNanoseconds: session.anchor.map { (clocks.realtime - $0.duration(to: clocks.now)).wholeNanoseconds })
    }
}

/// The loop's observer that puts the session on the control socket's state lines
/// (`ControlStateObserver.share`): an adopted one verbatim, else mapped once per change.
public struct SessionSharing<Instant: InstantProtocol & Sendable>: LoopObserver where Instant.Duration == Duration {
    public let state: ControlStateObserver
    public let clocks: SessionClocks<Instant>

    public init(state: ControlStateObserver, clocks: SessionClocks<Instant>) {
        self.state = state
        self.clocks = clocks
    }

    public func observe(_ event: LoopEvent<Instant>) {
        guard case let .session(session, adopted, status) = event else { return }
        state.share(adopted ?? SessionShare(session, clocks: clocks.read()), status: status, program: session.program)
    }
}

/// Follows the session through a loop turn: whether it changed (then it is shared again,
/// `LoopEvent.session`), and whether the last change was an `adopt` (then that is
/// shared verbatim, with its token). A turn's first call shares the session the loop starts with.
struct SessionChangeTracker<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    private var last: Session<Instant>?
    private var adopted: SessionShare?
    private var changed = true

    /// After `input` was applied, the session being `session`.
    mutating func applied(_ input: LoopInput<Instant>, session: Session<Instant>) {
        if case .adopt(let adoption, _) = input {
            adopted = adoption.share
            changed = true
        } else {
            passed(session)
        }
        last = session
    }

    /// After anything else (time passing: long presses, class starts), the session being `session`.
    mutating func passed(_ session: Session<Instant>) {
        if let last, last != session {
            adopted = nil
            changed = true
        }
        last = session
    }

    /// What to share, once per change: the adopted session verbatim, or `nil` (share `session`).
    mutating func take() -> (share: Bool, adopted: SessionShare?) {
        defer { changed = false }
        return (changed, adopted)
    }
}
