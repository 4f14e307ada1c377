#if canImport(Glibc)
import Glibc
#endif
import ControlProtocol
import Logging
import Platform
import RoundClockCore
import RoundClockService
import Synchronization

/// `roundclock-bench control`: the control socket's latency, in real time on an emulated
/// board, with the real render loop (on its own thread), the real `ControlServer` (on its
/// own) and a client on a Unix socket, as `run --control` wires them. STOP and START
/// alternate on a running countdown at random gaps (like `buttons`), each sent as
/// `{"command": ...}` on one connection while another is subscribed. Measured:
/// - command sent (the clock read just before send(2)) -> the display commit showing it
///   (the loop's own reading after the commit returned);
/// - that commit -> its state line read by the subscriber (on a thread of its own, timed as
///   its read returns).
public struct ControlBench: Sendable {
    public var commands: Int
    public var gap: ClosedRange<Int> = 20...80
    /// Busy threads on every CPU meanwhile.
    public var load = false
    public var timeout: Duration = .seconds(5)

    public init(commands: Int, load: Bool = false) {
        self.commands = commands
        self.load = load
    }

    public func run() async throws -> ControlReport {
        let generator = load ? LoadGenerator(threads: SystemInfo.processorCount()) : nil
        defer { generator?.finish() }
        let clock = MonotonicClock()
        let inbox = ButtonInbox<MonotonicClock.Instant>()
        let log = CommitLog()
        let hub = try ControlHub()
        let path = "/tmp/roundclock-bench-\(getpid()).sock"
        var logger = Logger(label: "roundclock-bench")
        logger.logLevel = .warning  // not the "control socket PATH" line
        let server = try ControlServer(path: path, hub: hub, logger: logger,
                                       checkProgram: { _ in nil }, post: { inbox.post($0, at: clock.now) })
        // As in `run`: the render loop and the control socket on one event loop.
        let eventLoop = try EventLoop(name: LoopThread.name)
        defer { eventLoop.finish() }
        try server.start(on: eventLoop)
        defer { server.stop() }
        let (loop, controller) = try await ButtonBench.countdownLoop(
            clock: clock, inbox: inbox, observer: log, ControlStateObserver(hub: hub), eventLoop: eventLoop)
        let anchor = loop.start
        let task = Task { await loop.run(controller) }
        defer { task.cancel() }
        _ = try await log.commit(after: 0, clock: clock, timeout: timeout, what: "the initial face") { _ in true }
        let remote = try LineConnection(path: path)
        let tap = try SubscriberTap(path: path, clock: clock, timeout: timeout)
        defer { server.stop(); tap.join() }  // the server's end ends the subscriber's stream

        var latencies: [Double] = [], deliveries: [Double] = []
        var random = SystemRandomNumberGenerator()
        for i in 0..<commands {
            try await Task.sleep(for: .milliseconds(Int.random(in: gap, using: &random)))
            let pausing = i % 2 == 0
            let seen = log.all.count
            let sent = clock.now
            let reply = try remote.request(ControlRequest.command(pausing ? .stop : .start).line, timeout: timeout)
            guard reply == ControlReply.ok.line else { throw BenchFailure("command \(i + 1) answered \(reply ?? "<closed>")") }
            let shown = try await log.commit(after: seen, clock: clock, timeout: timeout, what: "command \(i + 1)") {
                $0.face.time.blinking == pausing
            }
            latencies.append(micros(shown.at - anchor.duration(to: sent)))
            let arrived = try await tap.arrival(of: pausing ? "paused" : "running", timeout: timeout)
            deliveries.append(micros(anchor.duration(to: arrived) - shown.at))
        }
        return ControlReport(latency: LatencySummary(latencies), delivery: LatencySummary(deliveries), load: load)
    }
}

public struct ControlReport: Sendable, CustomStringConvertible {
    public var latency: LatencySummary?
    public var delivery: LatencySummary?
    public var load = false

    public var description: String {
        guard let l = latency, let d = delivery else { return "control: no commands" }
        return "control socket\(load ? " (load: busy thread per CPU)" : ""): \(l.count) commands (STOP/START), "
            + "command sent -> display commit: p50 \(fixed(l.p50, 0)) µs, p99 \(fixed(l.p99, 0)) µs, max \(fixed(l.max, 0)) µs\n"
            + "display commit -> state line read by a subscriber: p50 \(fixed(d.p50, 0)) µs, p99 \(fixed(d.p99, 0)) µs, max \(fixed(d.max, 0)) µs"
    }
}

/// The subscriber of `roundclock-bench control`: its own thread reads state lines as they
/// come and notes each one's arrival on the clock.
final class SubscriberTap: Sendable {
    private final class Arrivals: Sendable {
        /// Every state line's arrival, and how many `arrival` has handed out.
        let lines = Mutex<(all: [(at: MonotonicClock.Instant, state: String)], taken: Int)>(([], 0))
    }
    private let arrivals = Arrivals()
    private let thread: PosixThread

    init(path: String, clock: MonotonicClock, timeout: Duration) throws {
        let connection = try LineConnection(path: path)
        try connection.send(ControlRequest.subscribe.line)
        _ = try connection.line(timeout: timeout)  // the current state
        nonisolated(unsafe) let owned = connection  // the thread's alone from here on
        let arrivals = self.arrivals
        thread = try PosixThread.start(named: "bench-subscriber") {
            while let line = try? owned.line(timeout: .seconds(3600)) {
                let at = clock.now
                if let state = ControlState.parse(line)?.state { arrivals.lines.withLock { $0.all.append((at, state)) } }
            }
        }
    }

    /// Waits for the server to end the stream.
    func join() { thread.join() }

    /// When the next line showing `state` (after those already handed out) arrived.
    func arrival(of state: String, timeout: Duration) async throws -> MonotonicClock.Instant {
        let clock = MonotonicClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            let hit = arrivals.lines.withLock { lines -> MonotonicClock.Instant? in
                guard let index = lines.all[lines.taken...].firstIndex(where: { $0.state == state }) else { return nil }
                lines.taken = index + 1
                return lines.all[index].at
            }
            if let hit { return hit }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw BenchFailure("no \(state) line within \(timeout)")
    }
}
