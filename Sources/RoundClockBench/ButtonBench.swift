import LinuxHardware
import Platform
import RoundClockCore
import RoundClockService
import Synchronization

/// `roundclock-bench buttons`: button latency of our loop, in real time on an emulated
/// board: from the event's instant to the display commit that shows the press's effect.
/// STOP (pause: the time blinks) and START (resume) alternate on a running countdown,
/// each followed by its release, at random gaps so presses land at every phase of the
/// second; while paused the loop has nothing scheduled and sleeps without deadline.
///
/// Two sources of presses:
/// - default: posted into the loop's `ButtonInbox` from another task, stamped with the
///   clock read just before posting. Leaves out the kernel -> reader-thread delay.
/// - `gpioSim`: real edges on gpio-sim lines, read by the real `ButtonReader` (libgpiod,
///   poll, debouncer); the event instant is the kernel's edge timestamp, as in `run`.
///   Needs the gpio-sim module (the kernel-VM tests run it).
public struct ButtonBench: Sendable {
    public var presses: Int
    public var gap: ClosedRange<Int> = 20...80
    /// Busy threads on every CPU meanwhile.
    public var load = false
    public var gpioSim: GPIOSimButtons?
    /// How long a press may take to show before the run is abandoned as broken.
    public var timeout: Duration = .seconds(5)

    public init(presses: Int, load: Bool = false, gpioSim: GPIOSimButtons? = nil) {
        self.presses = presses
        self.load = load
        self.gpioSim = gpioSim
        // Real lines: gaps longer than the reader's 30 ms debounce lockout.
        if gpioSim != nil { gap = 60...140 }
    }

    public func run() async throws -> ButtonReport {
        let generator = load ? LoadGenerator(threads: SystemInfo.processorCount()) : nil
        defer { generator?.finish() }
        let clock = MonotonicClock()
        let inbox = ButtonInbox<MonotonicClock.Instant>()
        let log = CommitLog()
        // As in `run`: the render loop and the button lines on one event loop.
        let eventLoop = try EventLoop(name: LoopThread.name)
        defer { eventLoop.finish() }
        let (loop, controller) = try await Self.countdownLoop(clock: clock, inbox: inbox, observer: log, eventLoop: eventLoop)
        let anchor = loop.start
        let edges = EdgeLog()
        let reader = try gpioSim.map { sim throws(SystemError) -> ButtonReader in
            for button in [Button.start, .stop] { try sim.set(button, pressed: false) }
            let reader = try sim.reader(clock: clock, inbox: inbox, edges: edges)
            reader.start(on: eventLoop)
            return reader
        }
        defer { reader?.stop() }
        let task = Task { await loop.run(controller) }
        defer { task.cancel() }
        _ = try await log.commit(after: 0, clock: clock, timeout: timeout, what: "the initial face") { _ in true }

        var latencies: [Double] = [], readerDelays: [Double] = []
        var random = SystemRandomNumberGenerator()
        for i in 0..<presses {
            try await Task.sleep(for: .milliseconds(Int.random(in: gap, using: &random)))
            let pausing = i % 2 == 0
            let button: Button = pausing ? .stop : .start
            let seen = log.all.count
            var at = clock.now
            if let gpioSim { try gpioSim.set(button, pressed: true) } else { inbox.post(ButtonEvent(button, .press, at: at)) }
            let shown = try await log.commit(after: seen, clock: clock, timeout: timeout, what: "\(button) press \(i + 1)") {
                $0.face.time.blinking == pausing
            }
            if gpioSim != nil {
                guard let edge = edges.lastPress(of: button) else {
                    throw BenchFailure("\(button) press \(i + 1) showed on the display but the reader recorded no edge")
                }
                at = edge.event.at
                readerDelays.append(micros(at.duration(to: edge.postedAt)))
                try await Task.sleep(for: .milliseconds(40)) // held, then released after the lockout
                try gpioSim?.set(button, pressed: false)
            } else {
                inbox.post(ButtonEvent(button, .release, at: clock.now))
            }
            latencies.append(micros(shown.at - anchor.duration(to: at)))
        }
        if let first = edges.firstFailure {
            throw BenchFailure("button reader: \(first)")
        }
        return ButtonReport(latency: LatencySummary(latencies), load: load,
                            source: gpioSim.map { "gpio-sim \($0.chip) lines \($0.stopOffset) (STOP), \($0.startOffset) (START), kernel edge timestamps" },
                            readerDelay: LatencySummary(readerDelays))
    }
}

extension ButtonBench {
    /// The real render loop on an emulated board, a one-hour countdown started at its t = 0,
    /// reporting to `observer` (the `buttons` and `control` benchmarks).
    static func countdownLoop(clock: MonotonicClock, inbox: ButtonInbox<MonotonicClock.Instant>, observer: any DisplayObserver...,
                              eventLoop: EventLoop) async throws
        -> (RenderLoop<EventLoopWaiter<MonotonicClock>>, Controller<MonotonicClock.Instant>) {
        let board = try await BenchBoard.make()
        let anchor = clock.now
        var controller = Controller<MonotonicClock.Instant>(program: try Presets.countdown(.seconds(3600)))
        _ = controller.perform(.start, at: anchor)
        let wall = WallTime(hour: 12, minute: 0)
        let loop = RenderLoop(waiter: EventLoopWaiter(clock: clock, loop: eventLoop), start: anchor, inbox: inbox, display: EmulatedBenchBoard(board: board), observer: Observers(members: observer),
                              wallTime: { _ in wall }, stop: .never)
        return (loop, controller)
    }
}

/// A benchmark that could not measure (no edge arrived, a display never changed).
public struct BenchFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

public struct ButtonReport: Sendable, CustomStringConvertible {
    public var latency: LatencySummary?
    public var load = false
    /// nil: presses posted into the inbox; else where real edges came from.
    public var source: String?
    /// Kernel edge timestamp -> the reader posted the event (gpio-sim only).
    public var readerDelay: LatencySummary?

    public var description: String {
        guard let l = latency else { return "buttons: no presses" }
        var text = "buttons\(load ? " (load: busy thread per CPU)" : ""): \(l.count) presses"
            + (source.map { " on \($0)" } ?? " posted into the inbox")
            + ", event instant -> display commit: p50 \(fixed(l.p50, 0)) µs, p99 \(fixed(l.p99, 0)) µs, max \(fixed(l.max, 0)) µs"
        if let r = readerDelay {
            text += "\nof which kernel edge timestamp -> posted by the reader: p50 \(fixed(r.p50, 0)) µs, p99 \(fixed(r.p99, 0)) µs, max \(fixed(r.max, 0)) µs"
        }
        return text
    }
}
