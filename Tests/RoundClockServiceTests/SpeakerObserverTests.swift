import RoundClockCore
@testable import RoundClockService
import Sound
import Synchronization
import Testing

/// What the render loop tells a speaker: each boundary's sounds announced ahead of their
/// instants, taken back by a pause, moved by it, and reported once due.
@Suite struct SpeakerObserverTests {
    final class Calls: Sendable {
        struct Call { var at: Duration; var sounds: [ScheduledSound]; var announced: Bool }
        let all = Mutex([Call]())
        var list: [Call] { all.withLock { $0 } }
    }

    static let click = PCM(rate: 1_000, channels: 1, samples: [1])
    static let strikes: [Signal: [SpeakerObserver<VirtualClock.Instant>.Strike]] = [
        .start: [(.zero, click)],
        .warning: [(.zero, click)],
        .end: [(.zero, click), (.milliseconds(400), click), (.milliseconds(800), click)],
        .finish: [(.zero, click)],
    ]

    func run(_ script: String, until end: Duration) async throws -> (Calls, Recorder) {
        let clock = VirtualClock()
        let start = clock.now
        let calls = Calls()
        let speaker = SpeakerObserver<VirtualClock.Instant>(
            strikes: Self.strikes, monotonic: { $0.offset },
            announce: { sounds in calls.all.withLock { $0.append(.init(at: clock.now.offset, sounds: sounds, announced: true)) } },
            report: { sounds in calls.all.withLock { $0.append(.init(at: clock.now.offset, sounds: sounds, announced: false)) } })
        let recorder = Recorder()
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, display: emulatedBoard(), observer: Observers(members: [recorder], events: [speaker]),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(start.advanced(by: end)), endWhenIdle: true,
                              script: try ScriptedPress.parseList(script).flatMap { $0.edges(from: start) })
        var controller = Controller<VirtualClock.Instant>(program: Presets.boxing)
        _ = controller.perform(.start, at: start)
        await loop.run(controller)
        return (calls, recorder)
    }

    @Test func boundariesAreAnnouncedAheadAndAPauseTakesThemBack() async throws {
        // Boxing: 10 s prep, 3:00 rounds with a warning 10 s before the end, 1:00 rests.
        // Paused from 100 s to 120 s: round 1's warning moves from 180 s to 200 s, its end
        // from 190 s to 210 s.
        let (calls, recorder) = try await run("100:stop,120:start", until: .seconds(300))
        let list = calls.list
        func seconds(_ s: ScheduledSound) -> Double { Double(s.nanoseconds) / 1e9 }
        let duringPause = list.last { $0.announced && $0.at >= .seconds(100) && $0.at < .seconds(120) }
        #expect(duringPause?.sounds.isEmpty == true, "the pause takes back what was announced")
        let afterResume = try #require(list.first { $0.announced && $0.at >= .seconds(120) })
        #expect(afterResume.sounds.map(seconds).prefix(4) == [200, 210, 210.4, 210.8])
        // Every sound reported due was announced earlier (prep starts silently).
        let reported = list.filter { !$0.announced }.flatMap(\.sounds)
        for sound in reported where sound.nanoseconds > 0 {
            let first = list.first { $0.announced && $0.sounds.contains { $0.key == sound.key } }
            #expect(first.map { $0.at < .nanoseconds(sound.nanoseconds) } == true, "announced before \(seconds(sound)) s")
        }
        #expect(reported.map(seconds) == [10, 200, 210, 210.4, 210.8, 270])
        // The loop fired the same signals the speaker was told about.
        #expect(recorder.signals.filter { [.start, .warning, .end].contains($0.1) }.map(\.0) == [.seconds(10), .seconds(200), .seconds(210), .seconds(270)])
    }
}
