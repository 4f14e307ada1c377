import RoundClockCore
import Simulation
import Testing
@testable import RoundClockService

/// The render loop's persistence and watchdog hooks, and a restart mid-round.
@Suite struct LoopHooksTests {
    @Test func savesOnEveryActionAndResumesAfterAKill() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let system = FakeSystem()
        let saver = StateSaver(store: StateStore(directory: dir.path), readings: system.readings, logger: LogLines().logger())
        let clock = VirtualClock()
        let start = clock.now
        let beat = LoopHeartbeat<VirtualClock.Instant>()
        let saves = LogLines()
        let script = try ScriptedPress.parseList("20:start,50:stop,60:start").flatMap { $0.edges(from: start) }
        let save = OnEvent<VirtualClock.Instant> { event in
            guard case let .sessionChangedByAction(session, now) = event else { return }
            // The fake system clocks follow the virtual clock.
            system.clocks.withLock { $0.boottime = .seconds(1000) + now.offset; $0.realtime = .seconds(1_795_000_000) + now.offset }
            saver.save(session, at: now)
            saves.logger().info("\(session.state(at: now)) \(now.offset)")
        }
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, display: emulatedBoard(),
                              observer: Observers(members: [Recorder()], events: [beat, save]),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(start.advanced(by: .seconds(75))),
                              endWhenIdle: true, script: script)
        await loop.run(Controller(program: Presets.boxing))
        #expect(saves.all == ["info: running 20.0 seconds\n", "info: paused 50.0 seconds\n", "info: running 60.0 seconds\n"],
                "one save per command, none per second")
        #expect(beat.isHealthy(at: clock.now), "the loop reported each turn")

        // kill -9 at t = 75, restart at t = 83.4 on a new clock (same boot).
        system.clocks.withLock { $0.boottime = .seconds(1000 + 83) + .milliseconds(400) }
        let clock2 = VirtualClock(start: .init(offset: .seconds(500)))
        let (session, outcome) = saver.restore(now: clock2.now, fallback: Presets.tabata, resumeAfterReboot: true) { try? ProgramSpec.parse($0) }
        #expect(outcome == .sameBoot)
        // Ran 20→50 (30 s) and 60→83.4 (23.4 s): 53.4 s in = 43.4 s into round 1, shows 2:17.
        #expect(session.elapsed(at: clock2.now) == .milliseconds(53_400))
        var controller = Controller<VirtualClock.Instant>(program: session.program)
        controller.restore(session, at: clock2.now)
        let recorder = Recorder()
        let loop2 = RenderLoop(waiter: VirtualTimeWaiter(clock: clock2), start: clock2.now, display: emulatedBoard(), observer: Observers(recorder),
                               wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(clock2.now.advanced(by: .seconds(1))), endWhenIdle: true)
        await loop2.run(controller)
        #expect(recorder.frames.first?.panels.map(\.text) == [" 2:17", " 1.12", "WORK"])
        let next = try #require(recorder.frames.dropFirst().first)
        #expect(next.t == .milliseconds(600) && next.panels[0].text == " 2:16", "the next second on the dot")
    }
}

/// A loop observer made of a closure, for tests.
struct OnEvent<Instant: InstantProtocol & Sendable>: LoopObserver where Instant.Duration == Duration {
    let body: @Sendable (LoopEvent<Instant>) -> Void
    init(_ body: @escaping @Sendable (LoopEvent<Instant>) -> Void) { self.body = body }
    func observe(_ event: LoopEvent<Instant>) { body(event) }
}
