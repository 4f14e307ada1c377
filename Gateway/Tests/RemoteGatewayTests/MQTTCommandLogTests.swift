@testable import ClockMQTT
import Testing

/// A flood of bad `cmd` payloads is one line at once and one line a minute, not a line each.
@Suite struct MQTTCommandLogTests {
    @Test func aFloodIsOneLineAtOnceThenOneSummaryAMinute() {
        let captured = ClockLinkTests.Captured()
        let log = MQTTCommandLog(topic: "gym/ring1/cmd", logger: captured.logger)
        for n in 0..<6000 { log.note("ignored: not JSON: \(n)") }
        #expect(captured.lines.withLockedValue { $0 } == ["warning: MQTT gym/ring1/cmd: ignored: not JSON: 0"])
        #expect(log.report() == "MQTT gym/ring1/cmd: 5999 more commands ignored or not delivered in the last minute "
            + "(last: ignored: not JSON: 5999)")
        // The flood goes on: counted, not logged; a quiet minute after it says nothing.
        log.note("ignored: not JSON: again")
        #expect(captured.lines.withLockedValue { $0.count } == 1)
        #expect(log.report()?.hasPrefix("MQTT gym/ring1/cmd: 1 more commands") == true)
        #expect(log.report() == nil)
        // After a quiet minute, the next payload is a line at once again.
        #expect(log.report() == nil)
        log.note("the clock refused x: busy")
        #expect(captured.lines.withLockedValue { $0.last } == "warning: MQTT gym/ring1/cmd: the clock refused x: busy")
    }
}
