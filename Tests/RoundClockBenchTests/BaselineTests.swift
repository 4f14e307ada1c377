import RoundClockCore
import RoundClockService
import Testing
@testable import RoundClockBench

/// The baselines' logic in virtual time, where sleeps are exact: what remains is the
/// approach itself.
@Suite struct BaselineTests {
    let countdown = try! Presets.countdown(.seconds(10))

    @Test func timelineHasOneFacePerSecondFromTheAnchor() {
        let timeline = Timeline(program: countdown, horizon: .seconds(10))
        #expect(timeline.entries.map(\.at) == (0...10).map { .seconds($0) })
        #expect(timeline.entries.first?.face.time.text == "0:10".leftPadded && timeline.entries.last?.face.time.text == " 0:00")
        #expect(timeline.index(at: .milliseconds(9_500)) == 9 && timeline.index(at: .seconds(3)) == 3)
        let late = timeline.lateness(of: [Commit(at: .milliseconds(2_250), face: timeline.entries[2].face)])
        #expect(late.map(\.index) == [2] && late.map(\.lateness) == [.milliseconds(250)])
    }

    @Test func tickCounterIsExactWithoutStallsInVirtualTime() async throws {
        let clock = VirtualClock()
        let timeline = Timeline(program: countdown, horizon: .seconds(10))
        let log = CommitLog()
        let ticker = TickCounter(clock: clock, anchor: clock.now, timeline: timeline, display: try await BenchBoard.make(), stall: nil)
        let run = await ticker.run(until: clock.now.advanced(by: .seconds(10)), log: log)
        #expect(run.ticks == 10 && run.wakeUps == 10)
        #expect(timeline.lateness(of: log.all).allSatisfy { $0.lateness == .zero })
    }

    @Test func tickCounterNeverMakesUpAStall() async throws {
        let clock = VirtualClock()
        let timeline = Timeline(program: countdown, horizon: .seconds(10))
        let log = CommitLog()
        let ticker = TickCounter(clock: clock, anchor: clock.now, timeline: timeline, display: try await BenchBoard.make(),
                                 stall: (tick: 3, length: .milliseconds(1200)))
        _ = await ticker.run(until: clock.now.advanced(by: .seconds(10)), log: log)
        let late = timeline.lateness(of: log.all).map(\.lateness)
        #expect(late.prefix(3) == [.zero, .zero, .zero])
        #expect(late.dropFirst(3).allSatisfy { $0 == .milliseconds(1200) }, "late by the whole stall, forever")
        let result = ApproachResult(name: "B", commits: log.all, timeline: timeline, checkAt: .milliseconds(9_500),
                                    wakeUps: 8, over: .seconds(10))
        #expect(result.behindAtEnd == 1, "at 9.5 s it still shows the value due at 8 s")
        #expect(result.drift == 1_200_000)
        #expect(result.lateness?.max == 1_200_000 && result.lateness?.p50 == 1_200_000)
    }

    @Test func refreshLoopIsLateUntilItsNextTick() async throws {
        let clock = VirtualClock()
        let program = try Presets.countdown(.seconds(3))
        let timeline = Timeline(program: program, horizon: .seconds(3))
        let log = CommitLog()
        let refresh = RefreshLoop(clock: clock, anchor: clock.now, program: program, display: try await BenchBoard.make(),
                                  period: .milliseconds(300))
        let wakeUps = await refresh.run(until: clock.now.advanced(by: .seconds(3)), log: log)
        #expect(wakeUps == 10)
        // Ticks at 0.3 s steps: the 1 s change is seen at 1.2 s, the 2 s one at 2.1 s, 3 s at 3.0 s.
        #expect(timeline.lateness(of: log.all).map(\.lateness) == [.zero, .milliseconds(200), .milliseconds(100), .zero])
    }

    @Test func renderLoopCommitsOnTheDotAndWakesOncePerChangePlusPowerChecks() async throws {
        let clock = CountingClock(VirtualClock())
        let program = try Presets.countdown(.seconds(5))
        let log = CommitLog()
        var controller = Controller<VirtualClock.Instant>(program: program)
        let start = clock.now
        _ = controller.perform(.start, at: start)
        let wall = WallTime(hour: 12, minute: 0)
        let loop = RenderLoop(waiter: ClockSleepWaiter(clock: clock), start: start, display: try await BenchBoard.make(), observer: Observers(log),
                              wallTime: { _ in wall }, stop: .at(start.advanced(by: .seconds(5))))
        await loop.run(controller)
        let timeline = Timeline(program: program, horizon: .seconds(5))
        #expect(timeline.lateness(of: log.all).map(\.lateness) == Array(repeating: .zero, count: 6))
        // 5 changes, and no wake-up for the power checks (every 2 s, all panels): they ride
        // on the changes at 2 and 4 s.
        #expect(clock.wakeUps == 5 && clock.overshoot.allSatisfy { $0 == .zero })
    }

    @Test func virtualDriftOfAWholeBoxingSession() async throws {
        let report = try await VirtualDrift().run()
        #expect(report.driftFree && report.changes == 2830 && report.last == .zero)
    }
}

private extension String {
    var leftPadded: String { " " + self }
}
