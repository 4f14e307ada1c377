import Synchronization

/// What the render loop is doing, for the watchdog, read from the loop's events: a turn
/// started when it wakes, a display attempt that worked or failed, and the deadline it
/// waits for when it sleeps. The loop is healthy while
/// - it is working and has been for at most `grace` (a hung I2C write is not), or
/// - it is waiting and its wake-up deadline (if any) is at most `grace` in the past
///   (waiting for a button with nothing scheduled is healthy), and
/// - the display has not been failing for longer than `maxDisplayOffline` (if set).
public final class LoopHeartbeat<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    private enum Activity: Sendable {
        case notStarted
        case working(since: Instant)
        case waiting(until: Instant?)
    }
    private struct State: Sendable {
        var activity = Activity.notStarted
        var failingSince: Instant?
    }
    private let state = Mutex(State())
    public let grace: Duration
    public let maxDisplayOffline: Duration?

    public init(grace: Duration = .seconds(3), maxDisplayOffline: Duration? = nil) {
        self.grace = grace
        self.maxDisplayOffline = maxDisplayOffline
    }

    public func turnStarted(at now: Instant) { state.withLock { $0.activity = .working(since: now) } }
    public func waiting(until deadline: Instant?) { state.withLock { $0.activity = .waiting(until: deadline) } }
    public func committed() { state.withLock { $0.failingSince = nil } }
    public func displayFailed(at now: Instant) { state.withLock { if $0.failingSince == nil { $0.failingSince = now } } }

    /// A display attempt failed in the current turn: failing since the turn began.
    private func displayFailedThisTurn() {
        state.withLock { s in
            guard s.failingSince == nil, case .working(let since) = s.activity else { return }
            s.failingSince = since
        }
    }

    /// Whether the loop has begun its first turn.
    public var hasStarted: Bool {
        state.withLock { if case .notStarted = $0.activity { false } else { true } }
    }

    /// `nil` when healthy, else why not.
    public func problem(at now: Instant) -> String? {
        let s = state.withLock { $0 }
        if let limit = maxDisplayOffline, let since = s.failingSince, since.duration(to: now) > limit {
            return "display failing for \(since.duration(to: now).formattedSeconds(decimals: 1)) s"
        }
        switch s.activity {
        case .notStarted:
            return "render loop not started"
        case .working(let since):
            let busy = since.duration(to: now)
            return busy > grace ? "render loop busy for \(busy.formattedSeconds(decimals: 1)) s" : nil
        case .waiting(let until):
            guard let until else { return nil }
            let late = until.duration(to: now)
            return late > grace ? "render loop \(late.formattedSeconds(decimals: 1)) s late for its deadline" : nil
        }
    }

    public func isHealthy(at now: Instant) -> Bool { problem(at: now) == nil }
}

extension LoopHeartbeat: LoopObserver {
    public func observe(_ event: LoopEvent<Instant>) {
        switch event {
        case .turnStarted(let now): turnStarted(at: now)
        case .displayed(_, let update, _, _): if update.retryAfter == nil { committed() } else { displayFailedThisTurn() }
        case .waiting(let deadline): waiting(until: deadline)
        default: break
        }
    }
}
