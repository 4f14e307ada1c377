import RoundClockCore
import Synchronization
import Testing
@testable import RoundClockService

/// The stack light as the render loop drives it: the observer over whole sessions in
/// virtual time, each change handed on once, at the instant it is due.
@Suite struct StackLightObserverTests {
    /// The lights handed to the hardware, with the virtual time of each.
    final class Shown: Sendable {
        private let lights = Mutex([(Duration, StackLight)]())
        var all: [(Duration, StackLight)] { lights.withLock { $0 } }
        func record(_ light: StackLight, at t: Duration) { lights.withLock { $0.append((t, light)) } }
    }

    static let work = StackLight(lamp: .work), rest = StackLight(lamp: .rest), warn = StackLight(lamp: .warn)

    func run(_ program: Program, cadence: Cadence = .seconds, script: [ScriptedPress] = []) async -> [(Duration, StackLight)] {
        let clock = VirtualClock()
        let start = clock.now
        let shown = Shown()
        let observer = StackLightObserver { light in shown.record(light, at: start.duration(to: clock.now)) }
        let epoch = WallTime(hour: 12, minute: 0)
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, display: emulatedBoard(), observer: Observers(observer),
                              wallTime: { epoch.advanced(by: start.duration(to: $0)) }, stop: .afterFinish(.seconds(1)),
                              endWhenIdle: true, script: script.flatMap { $0.edges(from: start) })
        var controller = Controller<VirtualClock.Instant>(program: program, cadence: cadence)
        _ = controller.perform(.start, at: start)
        await loop.run(controller)
        return shown.all
    }

    /// A boxing session's light changes: prep red, then per round green, yellow 10 s before
    /// its end, red for the rest; dark at the finish.
    static func boxing(prepEndsAt prep: Duration = .seconds(10)) -> [(Duration, StackLight)] {
        var expected: [(Duration, StackLight)] = [(.zero, rest)]
        for round in 0..<12 {
            let start = prep + .seconds(240 * round)
            expected += [(start, work), (start + .seconds(170), warn), (start + .seconds(180), round == 11 ? .off : rest)]
        }
        return expected
    }

    @Test func aBoxingSessionHandsOnEachChangeOnceAtItsInstant() async {
        let shown = await run(Presets.boxing)
        #expect(shown.map(\.0) == Self.boxing().map(\.0))
        #expect(shown.map(\.1) == Self.boxing().map(\.1))
    }

    @Test func theWarningSignalLightsYellowWhenTheMinutesCadenceShowsNoChangeThen() async {
        let shown = await run(Presets.boxing, cadence: .minutes)
        let warnings = shown.filter { $0.1 == Self.warn }.map(\.0)
        #expect(warnings == (0..<12).map { .seconds(180 + 240 * $0) }, "yellow at each warning signal, on the dot")
        #expect(shown.last.map { $0.1 } == .off)
    }

    @Test func aTabataPausedInARestBlinksRedAndIsSteadyAgainOnResume() async throws {
        // Tabata: prep 0:10, 8 × 0:20 work / 0:10 rest; paused 5 s into the first rest.
        let shown = await run(Presets.tabata, script: try ScriptedPress.parseList("35:stop,45:start"))
        let expectedStart: [(Duration, StackLight)] = [
            (.zero, Self.rest), (.seconds(10), Self.work), (.seconds(30), Self.rest),
            (.seconds(35), StackLight(lamp: .rest, blinking: true)), (.seconds(45), Self.rest), (.seconds(50), Self.work),
        ]
        #expect(shown.prefix(6).map(\.0) == expectedStart.map(\.0))
        #expect(shown.prefix(6).map(\.1) == expectedStart.map(\.1))
        #expect(!shown.contains { $0.1.lamp == .warn }, "no warning in a tabata")
        #expect(shown.last.map { $0.1 } == .off, "dark when finished")
    }
}
