import GroupSync
import Testing

/// The refused group-time messages' lines: a few a minute, the rest summed up.
@Suite struct RefusalLogTests {
    @Test func theFirstOfAMinuteGetALineEachTheRestOneSummary() {
        var log = RefusalLog()
        let ms: Int64 = 1_000_000
        // 1,000 refusals in the first 10 s: 10 lines, then nothing until the minute is over.
        let lines = (0..<1_000).filter { log.refused(at: 5 * ms + Int64($0) * 10 * ms) }
        #expect(lines == Array(0..<RefusalLog.linesPerMinute))
        #expect(log.summary(at: 59_000 * ms) == nil)
        #expect(log.summary(at: 60_005 * ms) == 990)
        #expect(log.summary(at: 60_006 * ms) == nil)
        // The next minute starts afresh.
        let fresh = log.refused(at: 61_000 * ms)
        #expect(fresh)
        #expect(log.summary(at: 200_000 * ms) == nil)
    }

    @Test func aSummaryNotTakenInTimeComesWithTheNextMinutes() {
        var log = RefusalLog()
        for t in 0..<15 { _ = log.refused(at: Int64(t)) }
        // The next minute begins before anyone asked for the summary: its count is kept.
        let next = log.refused(at: RefusalLog.minute + 1)
        #expect(next)
        #expect(log.summary(at: RefusalLog.minute + 2) == nil)
        #expect(log.summary(at: 2 * RefusalLog.minute + 1) == 5)
    }
}
