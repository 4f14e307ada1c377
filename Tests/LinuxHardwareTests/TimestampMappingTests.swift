import LinuxHardware
import Testing

/// GPIO event timestamps (CLOCK_MONOTONIC) placed on the render loop's ContinuousClock.
@Suite struct TimestampMappingTests {
    let clock = ContinuousClock()

    @Test func anEdgeFiveMillisecondsOldIsPlacedFiveMillisecondsAgo() {
        let monotonicNow: UInt64 = 1_000_000_000_000
        let before = clock.now
        let at = continuousInstant(ofMonotonicNanoseconds: monotonicNow - 5_000_000, on: clock, monotonicNow: monotonicNow)
        let after = clock.now
        #expect(at >= before.advanced(by: .milliseconds(-5)) && at <= after.advanced(by: .milliseconds(-5)))
    }

    @Test func aRealKernelStampFromJustNowLandsJustBeforeNow() {
        // Between two readings of the loop's clock, however long the machine held us up.
        let before = clock.now
        let stamp = monotonicNanoseconds()
        let at = continuousInstant(ofMonotonicNanoseconds: stamp, on: clock)
        let after = clock.now
        #expect(at >= before.advanced(by: .milliseconds(-1)) && at <= after,
                "CLOCK_MONOTONIC and ContinuousClock agree: \(before.duration(to: at)) after the first reading")
    }

    @Test(arguments: [UInt64(2_000_000_000_000), UInt64(989_000_000_000)])
    func untrustedStampsArePlacedAtNow(stamp: UInt64) {
        let before = clock.now
        let at = continuousInstant(ofMonotonicNanoseconds: stamp, on: clock, monotonicNow: 1_000_000_000_000)
        #expect(at >= before && at <= clock.now, "a future stamp or one older than 10 s is not trusted")
    }
}
