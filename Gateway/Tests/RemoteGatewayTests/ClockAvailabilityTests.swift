@testable import ClockMQTT
import Testing

/// `ClockAvailability`, the rule for `<prefix>/status`, without a broker.
@Suite struct ClockAvailabilityTests {
    /// The link's first unreachable line says nothing yet, `online` waits for
    /// the connection's republish and for a report that waits for its options.
    @Test func theStatusWaitsForTheConnectionAndForKnowledge() {
        var availability = ClockAvailability()
        availability.connected()
        #expect(availability.due == nil, "the clock not tried yet")
        availability.clockSaid(reachable: false)
        #expect(availability.due == nil, "the link's line before its first attempt")
        availability.clockSaid(reachable: true)
        #expect(availability.due == "online")
        availability.announced = "online"
        #expect(availability.due == nil, "said once")
        availability.reportWaiting = true
        availability.clockSaid(reachable: false)
        #expect(availability.due == nil, "waits with the report")
        availability.reportWaiting = false
        #expect(availability.due == "offline", "a clock that was reached and is lost: at once")
        availability.disconnected()
        availability.clockSaid(reachable: true)
        #expect(availability.due == nil, "not connected")
        availability.connected()
        #expect(availability.due == "online", "each connection says it once")
        availability.stop()
        #expect(availability.due == nil, "nothing after a stop")

        var unreached = ClockAvailability()
        unreached.connected()
        unreached.clockSaid(reachable: false)
        unreached.clockSaid(reachable: false)
        #expect(unreached.due == "offline", "an attempt failed")
    }
}
