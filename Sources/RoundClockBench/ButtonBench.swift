import RoundClockCore
import RoundClockService

/// `roundclock bench buttons`: button latency of our loop, in real time on an emulated
/// board. Presses are posted into the loop's `ButtonInbox` from another task, stamped
/// with the clock read just before posting (as the GPIO reader will stamp them with the
/// kernel's event timestamp mapped onto the monotonic clock). Latency = event instant ->
/// the display commit that shows the press's effect. STOP (pause: the time blinks) and
/// START (resume) alternate on a running countdown, each followed by its release, at
/// random gaps so presses land at every phase of the second; while paused the loop has
/// nothing scheduled and sleeps without deadline.
///
/// What this leaves out on real hardware: the kernel -> reader-thread delay before the post.
public struct ButtonBench: Sendable {
    public var presses: Int
    public var gap: ClosedRange<Int> = 20...80
    /// Busy threads on every CPU meanwhile.
    public var load = false
    public init(presses: Int, load: Bool = false) {
        self.presses = presses
        self.load = load
    }

    public func run() async throws -> ButtonReport {
        let generator = load ? LoadGenerator(threads: SystemInfo.processorCount()) : nil
        defer { generator?.finish() }
        let board = try await BenchBoard.make()
        let clock = ContinuousClock()
        let inbox = ButtonInbox<ContinuousClock.Instant>()
        let (stream, continuation) = AsyncStream<Commit>.makeStream()
        let observer = StreamObserver(continuation: continuation)
        let anchor = clock.now
        var controller = Controller<ContinuousClock.Instant>(program: try Presets.countdown(.seconds(3600)))
        _ = controller.perform(.start, at: anchor)
        let wall = WallTime(hour: 12, minute: 0)
        let loop = RenderLoop(clock: clock, start: anchor, inbox: inbox, display: board, observer: observer,
                              wallTime: { _ in wall }, stop: .never)
        let task = Task { await loop.run(controller) }
        var commits = stream.makeAsyncIterator()
        _ = await commits.next() // the initial face
        var latencies: [Double] = []
        var random = SystemRandomNumberGenerator()
        for i in 0..<presses {
            try await Task.sleep(for: .milliseconds(Int.random(in: gap, using: &random)))
            let pausing = i % 2 == 0
            let at = clock.now
            inbox.post(ButtonEvent(pausing ? .stop : .start, .press, at: at))
            while let commit = await commits.next() {
                if commit.face.time.blinking == pausing {
                    latencies.append(micros(commit.at - anchor.duration(to: at)))
                    break
                }
            }
            inbox.post(ButtonEvent(pausing ? .stop : .start, .release, at: clock.now))
        }
        task.cancel()
        _ = await task.value
        continuation.finish()
        return ButtonReport(latency: LatencySummary(latencies), load: load)
    }
}

/// Passes every commit on to an `AsyncStream`.
final class StreamObserver: LoopObserver {
    let continuation: AsyncStream<Commit>.Continuation
    init(continuation: AsyncStream<Commit>.Continuation) { self.continuation = continuation }
    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        continuation.yield(Commit(at: t, face: face))
    }
    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {}
}

public struct ButtonReport: Sendable, CustomStringConvertible {
    public var latency: LatencySummary?
    public var load = false
    public var description: String {
        guard let l = latency else { return "buttons: no presses" }
        return "buttons\(load ? " (load: busy thread per CPU)" : ""): \(l.count) presses, event instant -> display commit: p50 \(fixed(l.p50, 0)) µs, p99 \(fixed(l.p99, 0)) µs, max \(fixed(l.max, 0)) µs"
    }
}
