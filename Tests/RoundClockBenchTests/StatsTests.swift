import Testing
@testable import RoundClockBench

@Suite struct StatsTests {
    @Test func nearestRankPercentiles() throws {
        let s = try #require(LatencySummary((1...100).map(Double.init).shuffled()))
        #expect(s.count == 100 && s.p50 == 50 && s.p99 == 99 && s.max == 100 && s.min == 1)
    }

    @Test func percentilesAreMeasuredSamples() throws {
        // Nearest rank never interpolates: with 10 samples p99 is the largest one.
        let s = try #require(LatencySummary([5, 1, 9, 3, 7, 2, 8, 4, 6, 10]))
        #expect(s.p50 == 5 && s.p99 == 10)
        let one = try #require(LatencySummary([42]))
        #expect(one.p50 == 42 && one.p99 == 42 && one.max == 42)
        #expect(LatencySummary([]) == nil)
        #expect(LatencySummary.percentile([1, 2, 3], 0) == 1)
    }

    @Test func ratiosAndFormatting() {
        #expect(ratio(8000, 250) == "32.0x")
        #expect(ratio(1, 0) == "-", "no ratio against a zero (virtual time)")
        #expect(fixed(1.25, 1) == "1.3" && fixed(-0.04, 1) == "0.0" && fixed(-2.5, 2) == "-2.50" && fixed(7, 0) == "7")
        #expect(micros(.milliseconds(3) + .nanoseconds(500)) == 3000.5)
    }
}
