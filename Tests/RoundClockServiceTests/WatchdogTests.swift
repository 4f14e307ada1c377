import Platform
import RoundClockCore
import Testing
@testable import RoundClockService

@Suite struct WatchdogTests {
    typealias I = VirtualClock.Instant
    func at(_ s: Double) -> I { I(offset: .milliseconds(Int64(s * 1000))) }

    @Test func heartbeatHealthTable() {
        let beat = LoopHeartbeat<I>(grace: .seconds(3), maxDisplayOffline: .seconds(30))
        #expect(beat.problem(at: at(0)) == "render loop not started")
        beat.turnStarted(at: at(1))
        #expect(beat.isHealthy(at: at(4)))
        #expect(beat.problem(at: at(4.5)) == "render loop busy for 3.5 s", "a hung display write")
        beat.waiting(until: at(10))
        #expect(beat.isHealthy(at: at(13)))
        #expect(beat.problem(at: at(13.5)) == "render loop 3.5 s late for its deadline")
        beat.waiting(until: nil)
        #expect(beat.isHealthy(at: at(100_000)), "waiting for a button with nothing scheduled")
        beat.displayFailed(at: at(200))
        beat.displayFailed(at: at(210))
        #expect(beat.isHealthy(at: at(230)))
        #expect(beat.problem(at: at(231)) == "display failing for 31.0 s")
        beat.committed()
        #expect(beat.isHealthy(at: at(231)))
    }

    @Test func feedsOnlyWhileHealthyAndLogsTransitions() throws {
        let server = try DatagramSocket(abstract: true)
        let log = LogLines()
        let clock = VirtualClock()
        let beat = LoopHeartbeat<I>(grace: .seconds(2))
        let feeder = WatchdogFeeder(clock: clock, interval: .seconds(5), heartbeat: beat,
                                    notifier: SystemdNotifier(socket: server.name), logger: log.logger())
        beat.waiting(until: at(8))
        #expect(feeder.feed(at: at(5), wasHealthy: true))
        #expect(server.receive() == "WATCHDOG=1")
        #expect(!feeder.feed(at: at(10.5), wasHealthy: true), "2.5 s overdue")
        #expect(!server.hasPending())
        #expect(!feeder.feed(at: at(15), wasHealthy: false))
        beat.turnStarted(at: at(16))
        #expect(feeder.feed(at: at(16), wasHealthy: false))
        #expect(server.receive() == "WATCHDOG=1")
        #expect(log.all == ["warning: watchdog: not feeding: render loop 2.5 s late for its deadline\n",
                            "notice: watchdog: render loop healthy, feeding\n"])
    }

    @Test func runPingsEveryIntervalUntilCancelled() async throws {
        let server = try DatagramSocket(abstract: false)
        let clock = ContinuousClock()
        let beat = LoopHeartbeat<ContinuousClock.Instant>()
        beat.waiting(until: nil)
        let feeder = WatchdogFeeder(clock: clock, interval: .milliseconds(20), heartbeat: beat,
                                    notifier: SystemdNotifier(socket: server.name), logger: LogLines().logger())
        let started = clock.now
        let task = Task { await feeder.run() }
        // A deadline only against a hang: in CI this suite runs at nice 19 beside real-time
        // processes, and the feeder's task can wait a minute for a thread.
        for _ in 0..<3 { #expect(await server.receiveAsync(timeout: .seconds(600)) == "WATCHDOG=1") }
        #expect(started.duration(to: clock.now) >= .milliseconds(40), "paced by the interval, not a burst")
        task.cancel()
        await task.value
    }

    /// The loop starts beside the feeder, on its own thread: a first check before its first
    /// turn is start-up, not a problem. No warning at each start (the journal shows it).
    @Test func aLoopStillStartingIsNotAWarning() async throws {
        let server = try DatagramSocket(abstract: false)
        let log = LogLines()
        let clock = VirtualClock()
        let beat = LoopHeartbeat<VirtualClock.Instant>(grace: .seconds(30))
        let feeder = WatchdogFeeder(clock: clock, interval: .milliseconds(500), heartbeat: beat,
                                    notifier: SystemdNotifier(socket: server.name), logger: log.logger())
        // In virtual time the feeder looks every 50 ms while the loop is still starting; the
        // loop's first turn comes 1 s in, and at 2.2 s the feeder's own task is cancelled.
        clock.at(VirtualClock.Instant(offset: .seconds(1))) { beat.waiting(until: nil) }
        clock.at(VirtualClock.Instant(offset: .milliseconds(2200))) { withUnsafeCurrentTask { $0?.cancel() } }
        await Task { await feeder.run() }.value
        #expect(log.all.isEmpty, "no warning while the loop was starting: \(log.all)")
        for _ in 0..<3 { #expect(server.hasPending() && server.receive() == "WATCHDOG=1", "pings at 1.0, 1.5, 2.0 s") }
        #expect(!server.hasPending(), "none before the loop turned")
    }

    /// A loop that never starts is still reported, once `grace` has passed, and only once.
    @Test func aLoopThatNeverStartsIsReportedAfterTheGrace() async throws {
        let server = try DatagramSocket(abstract: false)
        let log = LogLines()
        let clock = VirtualClock()
        let beat = LoopHeartbeat<VirtualClock.Instant>(grace: .milliseconds(100))
        let feeder = WatchdogFeeder(clock: clock, interval: .milliseconds(20), heartbeat: beat,
                                    notifier: SystemdNotifier(socket: server.name), logger: log.logger())
        // In virtual time: the grace ends at 0.1 s; at 1 s the feeder's own task is cancelled.
        clock.at(VirtualClock.Instant(offset: .seconds(1))) { withUnsafeCurrentTask { $0?.cancel() } }
        await Task { await feeder.run() }.value
        #expect(log.all == ["warning: watchdog: not feeding: render loop not started\n"])
        #expect(!server.hasPending(), "no ping for a loop that never turned")
    }
}
