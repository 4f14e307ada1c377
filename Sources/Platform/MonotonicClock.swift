#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC as a Swift `Clock`: the clock the kernel stamps GPIO edge events with,
/// the clock a condition variable and a timerfd wait on, and the clock `run` counts on. Its
/// instants hold the reading itself, so a kernel timestamp, a deadline and `now` are the
/// same numbers with no mapping between clocks.
public struct MonotonicClock: Clock, Sendable {
    /// A CLOCK_MONOTONIC reading: the time since the clock's (unspecified) zero.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        public let reading: Duration

        public init(reading: Duration) { self.reading = reading }

        /// A kernel timestamp in nanoseconds on CLOCK_MONOTONIC.
        public init(nanoseconds: UInt64) {
            reading = .nanoseconds(Int64(clamping: nanoseconds))
        }

        public func advanced(by duration: Duration) -> Instant { Instant(reading: reading + duration) }
        public func duration(to other: Instant) -> Duration { other.reading - reading }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.reading < rhs.reading }
        public var description: String { "monotonic \(reading)" }
    }

    /// Where `sleep` waits: a timer on this event loop (no thread of Swift's runtime
    /// involved), or, without one, Swift's suspending clock.
    public let loop: EventLoop?

    public init(sleepingOn loop: EventLoop? = nil) {
        self.loop = loop
    }

    public var now: Instant { Instant(reading: Self.read()) }

    public var minimumResolution: Duration {
        var resolution = timespec()
        clock_getres(CLOCK_MONOTONIC, &resolution)
        return .seconds(Int64(resolution.tv_sec)) + .nanoseconds(Int64(resolution.tv_nsec))
    }

    /// Sleeps until `deadline`: on the event loop's timer, or on Swift's suspending clock,
    /// which reads CLOCK_MONOTONIC on Linux (the deadline placed on it by its distance from
    /// now, read back to back). Throws `CancellationError` when cancelled, as `Task.sleep` does.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if let loop {
            await loop.sleep(untilMonotonic: deadline.reading)
            try Task.checkCancellation()
            return
        }
        let suspending = SuspendingClock()
        let target = suspending.now.advanced(by: now.duration(to: deadline))
        try await suspending.sleep(until: target, tolerance: tolerance)
    }

    /// `clock_gettime(CLOCK_MONOTONIC)` as a `Duration`.
    public static func read() -> Duration { SystemReadings.clockReading(CLOCK_MONOTONIC) }
}
