import LinuxHardware
import Platform
import Testing

/// GPIO event timestamps (CLOCK_MONOTONIC nanoseconds) as instants of the loop's
/// `MonotonicClock`: the same clock, so a trusted stamp is the instant itself.
@Suite struct TimestampMappingTests {
    let now = MonotonicClock.Instant(nanoseconds: 1_000_000_000_000)

    @Test func anEdgeFiveMillisecondsOldIsTheInstantFiveMillisecondsAgo() {
        let at = monotonicInstant(ofKernelNanoseconds: 1_000_000_000_000 - 5_000_000, now: now)
        #expect(at.duration(to: now) == .milliseconds(5))
    }

    @Test func aRealKernelStampFromJustNowLiesBetweenTwoReadingsOfTheClock() {
        let clock = MonotonicClock()
        let before = clock.now
        let at = monotonicInstant(ofKernelNanoseconds: monotonicNanoseconds())
        let after = clock.now
        #expect(at >= before && at <= after, "CLOCK_MONOTONIC from the C shim and MonotonicClock are one clock")
    }

    @Test(arguments: [UInt64(2_000_000_000_000), UInt64(989_000_000_000)])
    func untrustedStampsArePlacedAtNow(stamp: UInt64) {
        #expect(monotonicInstant(ofKernelNanoseconds: stamp, now: now) == now,
                "a future stamp or one older than 10 s is not trusted")
    }
}
