import Platform

/// A clock whose instants the render loop can wait for on an event loop
/// (`EventLoopWaiter`): it places an instant on CLOCK_MONOTONIC, the clock the loop's
/// timerfd is armed at the absolute deadline on. Other clocks are waited on through the
/// other waiters (`VirtualTimeWaiter`, `ClockSleepWaiter`).
public protocol MonotonicDeadlineClock: Clock where Duration == Swift.Duration {
    /// `instant` as a CLOCK_MONOTONIC reading.
    func monotonicReading(of instant: Instant) -> Duration
    /// The loop came back from a wait for `deadline` (nil: none was set), on time or cut
    /// short by a button or cancellation. Default: nothing; benchmarks count wake-ups.
    func loopWoke(waitingFor deadline: Instant?)
}

extension MonotonicDeadlineClock {
    public func loopWoke(waitingFor deadline: Instant?) {}
}

/// The project's own CLOCK_MONOTONIC clock: its instants are the readings themselves.
extension MonotonicClock: MonotonicDeadlineClock {
    public func monotonicReading(of instant: Instant) -> Duration { instant.reading }
}
