import Platform
import RoundClockCore
import RoundClockService

/// `roundclock-bench lateness`: in one process and over the same period, three approaches
/// each drive their own emulated board (three HT16K33 chips behind the real driver):
///
/// - ours: the real `RenderLoop` on `MonotonicClock` (wrapped to count wake-ups), which
///   sleeps until the absolute instant of the next change;
/// - A, `RefreshLoop`: a 60 Hz refresh redrawing from the same anchor;
/// - B, `TickCounter`: a 1 s tick counter with one injected 1.2 s stall.
///
/// All three share one anchor instant. For every change after the initial face,
/// lateness = (clock read right after `display.show` returned) - (the instant the ideal
/// `Timeline` says that face became due). The session is long enough not to finish.
public struct LatenessBench: Sendable {
    public var program: Program
    public var duration: Duration
    public var load = false
    public var fifo = false
    /// Run the two baselines alongside (false: ours alone, to see what sharing costs it).
    public var baselines = true
    /// The boards' power-loss checks (`PowerCheckSchedule.standard`); false: none, so our
    /// loop wakes once per change and nothing else.
    public var powerChecks = true
    /// Tick after which B stalls, and for how long.
    public var stallTick: Int
    public var stall: Duration = .milliseconds(1200)

    /// A countdown of `duration` + 5 s (so it is still running at the end), stall at a third.
    public init(duration: Duration, load: Bool = false, fifo: Bool = false) throws {
        let seconds = max(2, duration.components.seconds)
        self.program = try Presets.countdown(.seconds(seconds + 5))
        self.duration = duration
        self.load = load
        self.fifo = fifo
        self.stallTick = Int(max(1, seconds / 3))
    }

    public init(program: Program, duration: Duration, load: Bool = false, fifo: Bool = false, stallTick: Int) {
        self.program = program
        self.duration = duration
        self.load = load
        self.fifo = fifo
        self.stallTick = stallTick
    }

    public func run() async throws -> LatenessReport {
        var report = LatenessReport(program: program.name, duration: duration, load: load, stallTick: stallTick, stall: stall)
        report.powerChecks = powerChecks
        report.machineBefore = SystemInfo.machineLine()
        let generator = load ? LoadGenerator(threads: SystemInfo.processorCount()) : nil
        defer { generator?.finish() }
        if fifo { report.fifo = Realtime.apply(excluding: generator?.threadIDs ?? []).description }

        let ours = try await BenchBoard.make(powerChecks: powerChecks), boardA = try await BenchBoard.make(powerChecks: powerChecks),
            boardB = try await BenchBoard.make(powerChecks: powerChecks)
        let timeline = Timeline(program: program, horizon: duration + .seconds(2))
        let clock = CountingClock(MonotonicClock())
        let plain = MonotonicClock()
        let oursLog = CommitLog(), logA = CommitLog(), logB = CommitLog()
        let cpuBefore = SystemInfo.cpuTime()
        let anchor = clock.now
        let end = anchor.advanced(by: duration)
        var controller = Controller<MonotonicClock.Instant>(program: program)
        _ = controller.perform(.start, at: anchor)
        let wall = WallTime(hour: 12, minute: 0)
        // The render loop on an event loop of its own, as `run` runs it.
        let eventLoop = try EventLoop(name: LoopThread.name)
        defer { eventLoop.finish() }
        let loop = RenderLoop(waiter: EventLoopWaiter(clock: clock, loop: eventLoop), start: anchor, display: EmulatedBenchBoard(board: ours), observer: Observers(oursLog), wallTime: { _ in wall }, stop: .at(end))
        let refresh = RefreshLoop(clock: plain, anchor: anchor, program: program, display: EmulatedBenchBoard(board: boardA))
        let ticker = TickCounter(clock: plain, anchor: anchor, timeline: timeline, display: EmulatedBenchBoard(board: boardB), stall: (stallTick, stall))

        let withBaselines = baselines
        async let a = withBaselines ? refresh.run(until: end, log: logA) : 0
        async let b = withBaselines ? ticker.run(until: end, log: logB) : (wakeUps: 0, ticks: 0)
        async let again: String? = fifo ? Self.reapplyFIFO(excluding: generator?.threadIDs ?? []) : nil
        // While counting: from 1 s after the anchor to 0.5 s before the end.
        let window = (from: anchor.advanced(by: .seconds(1)), to: end.advanced(by: .milliseconds(-500)))
        let switchWindow = ContextSwitchWindow(from: plain.monotonicReading(of: window.from), to: plain.monotonicReading(of: window.to))
        await loop.run(controller)
        let (wakesA, resultB, fifoLater) = await (a, b, again)
        if let (first, last) = switchWindow.finish() {
            report.switches = ContextSwitchRates(from: first, to: last, seconds: micros(window.from.duration(to: window.to)) / 1e6,
                                                 load: generator?.threadIDs ?? [], loopThreadName: LoopThread.name)
        }
        let cpu = SystemInfo.cpuTime() - cpuBefore
        if let fifoLater { report.fifo = (report.fifo ?? "") + "; again after start: " + fifoLater }

        // Mid-second before the end: never on a boundary, so a commit a few µs late is not "behind".
        let check = Duration.seconds(duration.components.seconds) - .milliseconds(500)
        report.results = [
            ApproachResult(name: "ours (RenderLoop)", commits: oursLog.all, timeline: timeline, checkAt: check, wakeUps: clock.wakeUps, over: duration),
        ]
        if baselines {
            report.results += [
                ApproachResult(name: "A: 60 Hz refresh", commits: logA.all, timeline: timeline, checkAt: check, wakeUps: wakesA, over: duration),
                ApproachResult(name: "B: 1 s tick counter", commits: logB.all, timeline: timeline, checkAt: check, wakeUps: resultB.wakeUps, over: duration),
            ]
        }
        let overshoot = clock.overshoot
        report.timerOvershoot = LatencySummary(overshoot.map(micros))
        // Sleep i ends in change i + 1 (a countdown, no buttons): the rest is the loop's own part.
        let changes = timeline.lateness(of: oursLog.all).filter { $0.index > 0 }
        if changes.count == overshoot.count {
            report.afterWake = LatencySummary(zip(changes, overshoot).map { micros($0.lateness - $1) })
        }
        let lateB = timeline.lateness(of: logB.all)
        if stallTick > 3, lateB.count >= stallTick {
            report.tickGrowth = micros(lateB[stallTick - 1].lateness - lateB[1].lateness) / Double(stallTick - 2)
        }
        report.cpu = cpu
        report.maxRSSKiB = SystemInfo.maxRSSKiB()
        report.machineAfter = SystemInfo.machineLine()
        return report
    }

    private static func reapplyFIFO(excluding: [Int32]) async -> String {
        try? await Task.sleep(for: .milliseconds(300))
        return Realtime.apply(excluding: excluding).description
    }
}

/// The numbers of one lateness run, printed as a table.
public struct LatenessReport: Sendable, CustomStringConvertible {
    public var program: String
    public var duration: Duration
    public var load: Bool
    public var stallTick: Int
    public var stall: Duration
    public var fifo: String?
    public var results: [ApproachResult] = []
    /// How late our loop's sleeps returned (timer wake-up only), µs.
    public var timerOvershoot: LatencySummary?
    /// Ours, from its sleep returning to the commit returning (face, show), µs.
    public var afterWake: LatencySummary?
    /// B before its stall: lateness added per tick by relative sleeps, µs.
    public var tickGrowth: Double?
    /// Context switches per second while counting (the process less the load threads).
    public var switches: ContextSwitchRates?
    public var powerChecks = true
    public var cpu: Duration = .zero
    public var maxRSSKiB = 0
    public var machineBefore = ""
    public var machineAfter = ""

    public var description: String {
        var lines = [
            "lateness: \(program), \(fixed(micros(duration) / 1e6, 1)) s real time, MonotonicClock, emulated HT16K33 boards; load: "
                + (load ? "\(SystemInfo.processorCount()) busy threads" : "none") + (fifo.map { "; fifo: \($0)" } ?? ""),
            "before: \(machineBefore)",
            "after:  \(machineAfter)",
            table(results),
        ]
        if let o = timerOvershoot {
            lines.append("ours, sleep overshoot alone (deadline -> sleep returned): p50 \(fixed(o.p50, 0)) µs, p99 \(fixed(o.p99, 0)) µs, max \(fixed(o.max, 0)) µs over \(o.count) sleeps")
        }
        if let w = afterWake {
            lines.append("ours, sleep returned -> commit returned (back on the loop, face, show): p50 \(fixed(w.p50, 0)) µs, p99 \(fixed(w.p99, 0)) µs, max \(fixed(w.max, 0)) µs")
        }
        if let s = switches {
            let wakes = results.first.map { $0.wakeUpsPerSecond } ?? 0
            var line = "context switches/s while counting (\(fixed(s.seconds, 1)) s, getrusage less the load threads): process \(fixed(s.process, 2))"
            if let loop = s.loopThread { line += ", ours' loop thread \(fixed(loop, 2))" }
            if !s.others.isEmpty {
                line += "; other threads: " + s.others.sorted { $0.key < $1.key }.map { "\($0.key) \(fixed($0.value, 2))" }.joined(separator: ", ")
            }
            if results.count > 1 { line += " (the rest: the baselines and the runtime)" }
            if wakes > 0 { line += "; ours woke \(fixed(wakes, 2)) times/s" + (powerChecks ? " (power-loss checks included)" : " (no power-loss checks)") }
            lines.append(line)
        }
        guard results.count > 1 else { return lines.joined(separator: "\n") + "\nbaselines not run (--alone)" }
        var b = "B: one \(fixed(micros(stall) / 1e6, 1)) s stall after tick \(stallTick)"
        if let g = tickGrowth { b += "; before it, each relative 1 s sleep added \(fixed(g, 1)) µs (\(fixed(g * 3600 / 1e6, 2)) s per hour)" }
        lines.append(b)
        lines.append("process CPU (all three loops\(load ? " and the load" : "")): \(fixed(micros(cpu) / 1e6, 3)) s; max RSS \(maxRSSKiB) KiB")
        return lines.joined(separator: "\n")
    }
}
