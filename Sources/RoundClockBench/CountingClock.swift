import Platform
import RoundClockService
import Synchronization

/// Wraps a clock and counts every `sleep` that returned (or, on the render loop's own
/// loop, every timed wait that did: `loopWoke`) (each is one wake-up of the
/// sleeping loop), and how far past its deadline each returned (timer wake-up latency,
/// without the work that follows). The render loop is generic over its waiter and clock, so
/// wrapping `MonotonicClock` observes its wake-ups without touching its code.
public final class CountingClock<Base: Clock>: Clock, Sendable where Base: Sendable, Base.Duration == Duration, Base.Instant: Sendable {
    public typealias Instant = Base.Instant
    public let base: Base
    private let state = Mutex((wakeUps: 0, overshoot: [Duration]()))

    public init(_ base: Base) { self.base = base }

    public var now: Instant { base.now }
    public var minimumResolution: Duration { base.minimumResolution }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        defer { woke(after: deadline) }
        try await base.sleep(until: deadline, tolerance: tolerance)
    }

    /// One wake-up for `deadline`, and how late it came.
    private func woke(after deadline: Instant) {
        let late = deadline.duration(to: base.now)
        state.withLock { $0.wakeUps += 1; $0.overshoot.append(late) }
    }

    /// Sleeps that returned, including those cut short by cancellation (a button press).
    public var wakeUps: Int { state.withLock { $0.wakeUps } }
    /// How late each sleep returned relative to its deadline (negative when cut short).
    public var overshoot: [Duration] { state.withLock { $0.overshoot } }
}

/// Wrapping `MonotonicClock`, the render loop still waits on an event loop (`EventLoopWaiter`).
extension CountingClock: MonotonicDeadlineClock where Base: MonotonicDeadlineClock {
    public func monotonicReading(of instant: Instant) -> Duration { base.monotonicReading(of: instant) }
    public func loopWoke(waitingFor deadline: Instant?) {
        if let deadline { woke(after: deadline) }
    }
}
