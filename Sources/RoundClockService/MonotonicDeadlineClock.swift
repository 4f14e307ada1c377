#if canImport(Glibc)
import Glibc
#endif

/// A clock whose instants the render loop can wait for on its own thread (`LoopThread`):
/// it places an instant on CLOCK_MONOTONIC, the clock a condition variable waits on
/// (`pthread_condattr_setclock` accepts only CLOCK_MONOTONIC and CLOCK_REALTIME). Other
/// clocks (`VirtualClock`, test clocks) are slept on with `sleep(until:)`.
public protocol MonotonicDeadlineClock: Clock where Duration == Swift.Duration {
    /// `instant` as a CLOCK_MONOTONIC reading; nil when it cannot be placed (the loop then
    /// sleeps with `sleep(until:)`).
    func monotonicReading(of instant: Instant) -> Duration?
    /// The loop thread came back from a wait for `deadline` (nil: none was set), on time or
    /// cut short by a button or cancellation. Default: nothing; benchmarks count wake-ups.
    func loopWoke(waitingFor deadline: Instant?)
}

extension MonotonicDeadlineClock {
    public func loopWoke(waitingFor deadline: Instant?) {}
}

/// `ContinuousClock` on Linux reads CLOCK_BOOTTIME: the Swift 6.3 runtime's
/// `swift_get_time` maps the continuous clock to `clock_gettime(CLOCK_BOOTTIME)` (id 7;
/// the suspending clock to CLOCK_MONOTONIC). CLOCK_BOOTTIME = CLOCK_MONOTONIC + the time
/// spent suspended, an offset that changes only across a suspend (which a Pi never does),
/// so a deadline is moved onto CLOCK_MONOTONIC by that offset, measured again at every wait.
extension ContinuousClock: MonotonicDeadlineClock {
    public func monotonicReading(of instant: Instant) -> Duration? {
        guard let zero = BootTime.zero else { return nil }
        return zero.duration(to: instant) - BootTime.offset()
    }
}

enum BootTime {
    /// The instant whose CLOCK_BOOTTIME reading is 0: `ContinuousClock.Instant` holds its
    /// reading as one `Duration`. Checked once against clock_gettime(CLOCK_BOOTTIME) read
    /// on both sides of `ContinuousClock.now`; nil if the layout or the clock differ.
    static let zero: ContinuousClock.Instant? = {
        guard MemoryLayout<ContinuousClock.Instant>.size == MemoryLayout<Duration>.size else { return nil }
        let zero = unsafeBitCast(Duration.zero, to: ContinuousClock.Instant.self)
        let before = read(CLOCK_BOOTTIME)
        let now = zero.duration(to: ContinuousClock.now)
        let after = read(CLOCK_BOOTTIME)
        return before <= now && now <= after ? zero : nil
    }()

    /// CLOCK_BOOTTIME − CLOCK_MONOTONIC: the kernel's boot offset (time spent suspended),
    /// from the tightest of a few monotonic/boot/monotonic read triples (their spread is
    /// tens of ns; 0 exactly when the range includes it, as on a machine never suspended).
    static func offset() -> Duration {
        var low = Duration.seconds(Int64.min / 2), high = Duration.seconds(Int64.max / 2)
        for _ in 0..<3 {
            let first = read(CLOCK_MONOTONIC), boot = read(CLOCK_BOOTTIME), last = read(CLOCK_MONOTONIC)
            low = max(low, boot - last)
            high = min(high, boot - first)
        }
        if low <= .zero, .zero <= high { return .zero }
        return low + (high - low) / 2
    }

    static func read(_ clock: clockid_t) -> Duration {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return .seconds(Int64(ts.tv_sec)) + .nanoseconds(Int64(ts.tv_nsec))
    }
}
