#if canImport(Glibc)
import Glibc
#endif
import Panels
import Platform
import RoundClockCore
import Synchronization

/// `roundclock-bench timers`: where our lateness comes from. The same absolute deadlines
/// (every `period` plus a varying offset) are slept on in four ways, one after the other,
/// and the overshoot (clock read after waking - deadline) is summarised:
/// - `clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME)` on a dedicated thread: the kernel's
///   floor on this machine, no Swift runtime involved;
/// - `ContinuousClock.sleep(until:tolerance: .zero)` awaited directly in a task (Swift's
///   Dispatch-based executor: a one-shot timer source, then a pool thread runs the task);
/// - the same with `tolerance: nil` (`dispatch_after`, the default `Task.sleep` path);
/// - `.zero` in a child `Task` whose value is awaited, as `ClockSleepWaiter` does to make
///   the sleep cancellable by a button post (one more enqueue and possibly a thread wake).
/// Last, the commit itself: `BoardDisplay.show` of successive countdown faces on three
/// emulated panels (encode, driver diff, emulated I2C, read-back decode), no sleeping.
public struct TimerProbe: Sendable {
    public var count: Int
    public var period: Duration = .milliseconds(20)
    public init(count: Int, period: Duration = .milliseconds(20)) {
        self.count = count
        self.period = period
    }

    public func run() async -> String {
        var lines = ["timers: overshoot after an absolute deadline, \(count) sleeps each, \(fixed(micros(period) / 1e3, 0)) ms apart, \(SystemInfo.machineLine())"]
        func line(_ name: String, _ samples: [Duration]) {
            guard let s = LatencySummary(samples.map(micros)) else { return }
            lines.append(pad(name, 46, left: true) + "p50 \(pad(fixed(s.p50, 0), 5)) µs  p99 \(pad(fixed(s.p99, 0), 6)) µs  max \(pad(fixed(s.max, 0), 6)) µs")
        }
        line("clock_nanosleep TIMER_ABSTIME, own thread", nanosleepThread())
        line("ContinuousClock.sleep(until:tolerance: .zero)", await swiftSleep(tolerance: .zero, childTask: false))
        line("ContinuousClock.sleep(until:tolerance: nil)", await swiftSleep(tolerance: nil, childTask: false))
        line(".zero in a child Task, value awaited (inbox)", await swiftSleep(tolerance: .zero, childTask: true))
        line("BoardDisplay.show, one second change", (try? await showCost()) ?? [])
        return lines.joined(separator: "\n")
    }

    /// Deadline i: i periods plus a varying fraction, so wake-ups fall at all phases.
    func offset(_ i: Int) -> Duration { period * (i + 1) + .microseconds((i * 7919) % 5000) * (Double(micros(period)) / 20_000) }

    func swiftSleep(tolerance: Duration?, childTask: Bool) async -> [Duration] {
        let clock = ContinuousClock()
        let origin = clock.now
        var samples: [Duration] = []
        for i in 0..<count {
            let deadline = origin.advanced(by: offset(i))
            if childTask {
                let sleeper = Task<Void, Never> { _ = try? await clock.sleep(until: deadline, tolerance: tolerance) }
                await sleeper.value
            } else {
                _ = try? await clock.sleep(until: deadline, tolerance: tolerance)
            }
            samples.append(deadline.duration(to: clock.now))
        }
        return samples
    }

    func showCost() async throws -> [Duration] {
        let board = try await BenchBoard.make()
        let timeline = Timeline(program: try Presets.countdown(.seconds(Int64(count) + 1)), horizon: .seconds(Int64(count)))
        let clock = ContinuousClock()
        var samples: [Duration] = []
        for entry in timeline.entries {
            let before = clock.now
            _ = await board.show(entry.face)
            samples.append(before.duration(to: clock.now))
        }
        return samples
    }

    func nanosleepThread() -> [Duration] {
        // @unchecked: `samples` is written by the probe's thread only and read after `join()`.
        final class Box: @unchecked Sendable {
            let probe: TimerProbe
            var samples: [Duration] = []
            init(_ probe: TimerProbe) { self.probe = probe }
        }
        let box = Box(self)
        let thread = try? PosixThread.start(named: "timer probe") {
            var origin = timespec()
            clock_gettime(CLOCK_BOOTTIME, &origin)
            let start = Duration.seconds(Int64(origin.tv_sec)) + .nanoseconds(Int64(origin.tv_nsec))
            for i in 0..<box.probe.count {
                let deadline = start + box.probe.offset(i)
                let (s, a) = deadline.components
                sleepUntil(timespec(tv_sec: Int(s), tv_nsec: Int(a / 1_000_000_000)), on: CLOCK_BOOTTIME)
                var now = timespec()
                clock_gettime(CLOCK_BOOTTIME, &now)
                box.samples.append(.seconds(Int64(now.tv_sec)) + .nanoseconds(Int64(now.tv_nsec)) - deadline)
            }
        }
        guard let thread else { return [] }
        thread.join()
        return box.samples
    }
}
