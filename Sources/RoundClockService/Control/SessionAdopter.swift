import ControlProtocol
import Platform
import RoundClockCore

/// The clock's side of `adopt` (docs/control-protocol.md "adopt"), on the control socket's thread:
/// resolves the program, reads the loop's clock and CLOCK_REALTIME once, back to back, maps
/// the shared anchor onto the loop's clock (`SessionAdoption.session`) and posts the result
/// to the render loop's inbox, where buttons arrive too. The loop replaces the session on
/// its next turn, re-renders at once, persists it, and logs one line (`note`: the token and
/// the wall clock's sync state, `ClockSync.state`).
public struct SessionAdopter<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    public let clocks: SessionClocks<Instant>
    /// The program a spec names (preset, `[programs]` name or DSL line), or why there is none.
    public let resolve: @Sendable (String) -> Result<Program, ControlError>
    /// The wall clock's sync state for the log line (`ClockSync.state`).
    public let syncState: @Sendable () -> ClockSyncState
    public let post: @Sendable (LoopInput<Instant>) -> Void

    public init(clocks: SessionClocks<Instant>, resolve: @escaping @Sendable (String) -> Result<Program, ControlError>,
                syncState: @escaping @Sendable () -> ClockSyncState = { ClockSync.state() },
                post: @escaping @Sendable (LoopInput<Instant>) -> Void) {
        self.clocks = clocks
        self.resolve = resolve
        self.syncState = syncState
        self.post = post
    }

    /// Checks and posts `share` (parsed by `ControlRequest`); returns why it was refused, one line.
    public func adopt(token: Int64, share: SessionShare) -> String? {
        let program: Program
        switch resolve(share.program) {
        case .success(let resolved): program = resolved
        case .failure(let error): return "adopt: \(error.description)"
        }
        if program.kind != .intervals, share.run != .ready {
            return "adopt: \(program.name) shows the wall clock: its session is only ever ready"
        }
        let (now, realtime) = clocks.read()
        let anchor = share.anchorRealtimeNanoseconds.map { Duration.nanoseconds($0) }
        if let anchor, anchor - realtime > SessionAdoption.latestAnchorAhead {
            return "adopt: \"anchor_realtime_ns\" lies more than 24 h ahead of this clock's wall clock"
        }
        let session: Session<Instant> = SessionAdoption.session(
            program: program, elapsedBefore: .nanoseconds(share.elapsedBeforeNanoseconds), anchorRealtime: anchor,
            realtime: realtime, now: now)
        var adopted = share
        adopted.adopted = token
        var note = "token \(token): \(share.program) \(share.run.rawValue)"
        if let anchor { note += ", anchor \((realtime - anchor).formattedSeconds(decimals: 6)) s ago" }
        note += "; \(syncState())"
        post(.adopt(AdoptedSession(session: session, share: adopted, note: note), at: now))
        return nil
    }
}
