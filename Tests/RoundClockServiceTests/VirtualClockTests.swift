import Synchronization
import Testing
@testable import RoundClockService

/// `VirtualClock.at`: something that happens while the loop sleeps (a chip losing power).
@Suite struct VirtualClockTests {
    @Test func actionsRunDuringTheSleepThatPassesThemAtTheirInstants() async throws {
        let clock = VirtualClock()
        let seen = Mutex<[String]>([])
        let at = { (seconds: Double) in VirtualClock.Instant(offset: .milliseconds(Int(seconds * 1000))) }
        clock.at(at(2.5)) { seen.withLock { $0.append("b \(clock.now.offset)") } }
        clock.at(at(1.25)) { seen.withLock { $0.append("a \(clock.now.offset)") } }
        clock.at(at(2.5)) { seen.withLock { $0.append("c \(clock.now.offset)") } }
        clock.at(at(9)) { seen.withLock { $0.append("late") } }
        try await clock.sleep(until: at(1))
        #expect(seen.withLock { $0 }.isEmpty && clock.now == at(1))
        try await clock.sleep(until: at(3))
        #expect(seen.withLock { $0 } == ["a 1.25 seconds", "b 2.5 seconds", "c 2.5 seconds"], "in order of instants, then of calls")
        #expect(clock.now == at(3))
    }
}
