import Platform
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `EventLoop`: one thread that waits in epoll for its timers, its watched descriptors and
/// the work and task jobs handed to it.
@Suite struct EventLoopTests {
    /// Polls `condition` until it holds or 30 s pass (the loop's work is asynchronous).
    func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = MonotonicClock().now.advanced(by: .seconds(30))
        while MonotonicClock().now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    @Test func timersRunOnTheLoopThreadAtOrAfterTheirDeadlinesInOrder() async throws {
        let loop = try EventLoop(name: "test-timers")
        defer { loop.finish() }
        let fired = Mutex<[(index: Int, at: Duration, onLoop: Bool)]>([])
        let now = MonotonicClock.read()
        // Scheduled out of order, two at the same instant: run by deadline, then by scheduling.
        for (index, offset) in [(0, 60), (1, 20), (2, 40), (3, 40)] {
            let deadline = now + .milliseconds(offset)
            loop.schedule(atMonotonic: deadline) {
                fired.withLock { $0.append((index, MonotonicClock.read() - deadline, loop.inLoopThread)) }
            }
        }
        #expect(await eventually { fired.withLock { $0.count } == 4 })
        let result = fired.withLock { $0 }
        #expect(result.map(\.index) == [1, 2, 3, 0])
        #expect(result.allSatisfy { $0.at >= .zero }, "never before its deadline: \(result.map(\.at))")
        #expect(result.allSatisfy { $0.onLoop })
    }

    @Test func aCancelledTimerNeverRuns() async throws {
        let loop = try EventLoop(name: "test-cancel")
        defer { loop.finish() }
        let ran = Mutex<[String]>([])
        let now = MonotonicClock.read()
        let cancelled = loop.schedule(atMonotonic: now + .milliseconds(30)) { ran.withLock { $0.append("cancelled") } }
        loop.schedule(atMonotonic: now + .milliseconds(60)) { ran.withLock { $0.append("kept") } }
        loop.cancel(cancelled)
        #expect(await eventually { ran.withLock { $0 } == ["kept"] })
        #expect(ran.withLock { $0 } == ["kept"])
    }

    @Test func aTimerScheduledFromAnotherThreadEarlierThanTheArmedOneWakesTheLoopForIt() async throws {
        let loop = try EventLoop(name: "test-rearm")
        defer { loop.finish() }
        let ran = Mutex<[String]>([])
        let now = MonotonicClock.read()
        loop.schedule(atMonotonic: now + .seconds(3600)) { ran.withLock { $0.append("late") } }
        // Let the loop go to sleep on the hour-long timer, then ask for one 20 ms away.
        try await Task.sleep(for: .milliseconds(50))
        let early = MonotonicClock.read() + .milliseconds(20)
        loop.schedule(atMonotonic: early) { ran.withLock { $0.append("early") } }
        #expect(await eventually { ran.withLock { $0 } == ["early"] })
    }

    @Test func aWatchedDescriptorsHandlerRunsOnTheLoopUntilUnwatched() async throws {
        let loop = try EventLoop(name: "test-watch")
        defer { loop.finish() }
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let seen = Mutex<[UInt8]>([])
        let onLoop = Mutex(true)
        let readEnd = ends[0]
        let token = try loop.watch(readEnd, subject: "test pipe") { _ in
            var byte: UInt8 = 0
            if read(readEnd, &byte, 1) == 1 { seen.withLock { $0.append(byte) } }
            if !loop.inLoopThread { onLoop.withLock { $0 = false } }
        }
        for byte: UInt8 in [7, 8, 9] {
            var value = byte
            #expect(write(ends[1], &value, 1) == 1)
        }
        #expect(await eventually { seen.withLock { $0 } == [7, 8, 9] })
        #expect(onLoop.withLock { $0 })
        loop.unwatch(ends[0], token)
        var late: UInt8 = 10
        #expect(write(ends[1], &late, 1) == 1)
        // The loop is still alive (its work runs), and the unwatched pipe keeps its byte.
        let alive = Mutex(false)
        loop.execute { alive.withLock { $0 = true } }
        #expect(await eventually { alive.withLock { $0 } })
        #expect(seen.withLock { $0 } == [7, 8, 9])
    }

    @Test func aTaskThatPrefersTheLoopRunsAndSleepsOnItsThread() async throws {
        let loop = try EventLoop(name: "test-tasks")
        defer { loop.finish() }
        let result = await withTaskExecutorPreference(loop) { () async -> (before: Bool, slept: Duration, after: Bool) in
            let before = loop.inLoopThread
            let start = MonotonicClock().now
            try? await MonotonicClock(sleepingOn: loop).sleep(until: start.advanced(by: .milliseconds(30)))
            return (before, start.duration(to: MonotonicClock().now), loop.inLoopThread)
        }
        #expect(result.before && result.after)
        #expect(result.slept >= .milliseconds(30))
    }

    @Test func aCancelledSleepOnTheLoopEndsAtOnceAndThrows() async throws {
        let loop = try EventLoop(name: "test-sleep")
        defer { loop.finish() }
        let task = Task<Bool, Never>(executorPreference: loop) { () async -> Bool in
            let clock = MonotonicClock(sleepingOn: loop)
            do {
                try await clock.sleep(until: clock.now.advanced(by: .seconds(3600)))
                return false
            } catch {
                return error is CancellationError
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        #expect(await task.value, "cancellation ends an hour-long sleep with CancellationError")
    }
}
