import Platform
import RoundClockCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reads button edges on the clock's event loop: each line's event fd is watched by its
/// epoll, so an edge costs no thread of its own and the render loop, on the same thread, is
/// never blocked by it. Debounce without added latency: the first edge acts at once;
/// further edges within the lockout window (default 30 ms) are chatter and are ignored;
/// when the window closes (a timer on the loop) the line is read once more, and if it
/// settled on the other level that edge is delivered then. Failures go to `onFailure` as
/// they happen: a line that fails (a read error, EPOLLERR/EPOLLHUP: its chip went away, or
/// a descriptor epoll cannot watch) is reported once and left alone, the others keep working.
// @unchecked: the lines (not Sendable) are read only by start() and then on the event loop's thread; the rest is in `state`.
public final class ButtonReader: @unchecked Sendable {
    public typealias Handler = @Sendable (_ button: Button, _ pressed: Bool, _ monotonicNanoseconds: UInt64) -> Void
    public typealias FailureHandler = @Sendable (ButtonFailure) -> Void

    private let lines: [(button: Button, line: any InputLine)]
    private let lockoutNanoseconds: UInt64
    private let handler: Handler
    private let onFailure: FailureHandler

    private struct Running {
        var loop: EventLoop
        var debouncers: [EdgeDebouncer]
        var dead: [Bool]
        var watches: [Int: EventLoop.Token] = [:]
        var rechecks: [Int: EventLoop.Token] = [:]
    }
    private let state = Mutex<Running?>(nil)

    /// Requests each button's line: input, both edges, `bias`, active-low as wired. `run`
    /// and the benchmark use `init(buttons:activeLow:bias:lockout:onFailure:events:)`,
    /// which hands this a `ButtonReader.events(placedBy:to:)` handler.
    convenience init(buttons: [Button: String], activeLow: Bool, bias: GPIOBias, lockout: Duration = .milliseconds(30),
                     useKernelDebounce: Bool = false, onFailure: @escaping FailureHandler = { _ in },
                     handler: @escaping Handler) throws(SystemError) {
        var requested: [(Button, any InputLine)] = []
        for button in Button.allCases {
            guard let spec = buttons[button] else { continue }
            let location = try GPIOLines.locate(spec)
            let micros = useKernelDebounce ? UInt32(clamping: lockout.clampedNanoseconds / 1_000) : 0
            requested.append((button, try RequestedLine.input(location, consumer: "roundclock-\(button.rawValue)",
                                                               activeLow: activeLow, bias: bias, debounceMicroseconds: micros)))
        }
        self.init(lines: requested, lockout: lockout, onFailure: onFailure, handler: handler)
    }

    init(lines: [(Button, any InputLine)], lockout: Duration, onFailure: @escaping FailureHandler, handler: @escaping Handler) {
        self.lines = lines.map { (button: $0.0, line: $0.1) }
        lockoutNanoseconds = lockout.clampedNanoseconds
        self.onFailure = onFailure
        (endedByFailure, endedContinuation) = AsyncStream.makeStream(of: ButtonFailure.self, bufferingPolicy: .bufferingNewest(1))
        self.handler = handler
    }

    /// Yields once, and finishes, when every line has failed: `ButtonService` then fails so
    /// systemd restarts the service.
    public let endedByFailure: AsyncStream<ButtonFailure>
    private let endedContinuation: AsyncStream<ButtonFailure>.Continuation

    /// Whether the reader was started and not yet stopped.
    public var isRunning: Bool { state.withLock { $0 != nil } }

    /// Reads each line's level, then watches the lines on `loop` (once; a second call while
    /// it runs does nothing).
    public func start(on loop: EventLoop) {
        var failures: [(Int, SystemError)] = []
        let started = state.withLock { running -> Bool in
            guard running == nil else { return false }
            var dead = [Bool](repeating: false, count: lines.count)
            let debouncers: [EdgeDebouncer] = lines.indices.map { i in
                var level = false
                do throws(SystemError) { level = try lines[i].line.value() } catch {
                    dead[i] = true
                    failures.append((i, error))
                }
                return EdgeDebouncer(pressed: level, lockoutNanoseconds: lockoutNanoseconds)
            }
            running = Running(loop: loop, debouncers: debouncers, dead: dead)
            return true
        }
        guard started else { return }
        for (i, error) in failures { report(i, error) }
        for i in lines.indices where !(state.withLock { $0?.dead[i] ?? true }) {
            let line = lines[i].line
            do throws(SystemError) {
                let token = try loop.watch(line.eventFD, subject: "\(line)") { [weak self] events in self?.readable(i, events: events) }
                state.withLock { $0?.watches[i] = token }
            } catch {
                fail(i, SystemError(device: "\(line)", operation: "watch edge events", errno: error.errno))
            }
        }
        endIfAllFailed()
    }

    /// Stops watching the lines and cancels the pending re-reads; no handler runs after it
    /// returns on the loop's thread (from elsewhere, one already running may finish).
    public func stop() {
        guard let running = state.withLock({ running -> Running? in
            defer { running = nil }
            return running
        }) else { return }
        for (i, token) in running.watches { running.loop.unwatch(lines[i].line.eventFD, token) }
        for token in running.rechecks.values { running.loop.cancel(token) }
    }

    /// The loop found line `i`'s descriptor ready: read one edge (EPOLLIN), or fail the line
    /// (EPOLLERR/EPOLLHUP without input: its chip went away).
    private func readable(_ i: Int, events: EventLoop.Events) {
        // A line that failed before its watch was stored: unwatched now.
        let unwatch = state.withLock { running -> (EventLoop, EventLoop.Token)? in
            guard let token = running?.watches[i], running?.dead[i] == true, let loop = running?.loop else { return nil }
            running!.watches[i] = nil
            return (loop, token)
        }
        if let (loop, token) = unwatch { loop.unwatch(lines[i].line.eventFD, token) }
        guard state.withLock({ $0.map { !$0.dead[i] } ?? false }) else { return }
        if events.contains(.input) {
            var event: (active: Bool, timestampNanoseconds: UInt64)
            do throws(SystemError) { event = try lines[i].line.readEvent() } catch {
                fail(i, error)
                return
            }
            // A stamp that is not CLOCK_MONOTONIC (the v1 uAPI before Linux 5.7) counts as now,
            // as it does for the event's instant, so the lockout window is on the loop's clock.
            let trusted = monotonicInstant(ofKernelNanoseconds: event.timestampNanoseconds)
            event.timestampNanoseconds = UInt64(clamping: trusted.reading.wholeNanoseconds)
            let deliver = state.withLock { running -> Bool in
                guard running != nil else { return false }
                let deliver = running!.debouncers[i].edge(pressed: event.active, at: event.timestampNanoseconds)
                scheduleRecheck(i, &running!)
                return deliver
            }
            if deliver { handler(lines[i].button, event.active, event.timestampNanoseconds) }
        } else if !events.isDisjoint(with: [.error, .hangUp]) {
            fail(i, Self.pollError(events, line: lines[i].line))
        }
    }

    /// With the state locked: a timer for line `i`'s re-read when its window closes, if it
    /// saw chatter and none is pending.
    private func scheduleRecheck(_ i: Int, _ running: inout Running) {
        guard let at = running.debouncers[i].recheckAt, running.rechecks[i] == nil else { return }
        running.rechecks[i] = running.loop.schedule(atMonotonic: .nanoseconds(Int64(clamping: at))) { [weak self] in
            self?.recheck(i)
        }
    }

    /// Line `i`'s lockout window closed: read its level; deliver a change it settled to.
    private func recheck(_ i: Int) {
        guard state.withLock({ running -> Bool in
            running?.rechecks[i] = nil
            return running.map { !$0.dead[i] } ?? false
        }) else { return }
        let level: Bool
        do throws(SystemError) { level = try lines[i].line.value() } catch {
            fail(i, error)
            return
        }
        let now = monotonicNanoseconds()
        let deliver = state.withLock { running -> Bool in
            guard running != nil else { return false }
            let deliver = running!.debouncers[i].settle(level: level, at: now)
            scheduleRecheck(i, &running!)
            return deliver
        }
        if deliver { handler(lines[i].button, level, now) }
    }

    /// Line `i` failed: reported once, no longer watched (a level-triggered EPOLLERR would
    /// otherwise come back at once forever).
    private func fail(_ i: Int, _ error: SystemError) {
        let unwatch = state.withLock { running -> (EventLoop, EventLoop.Token?)? in
            guard running != nil, !running!.dead[i] else { return nil }
            running!.dead[i] = true
            defer { running!.watches[i] = nil }
            return (running!.loop, running!.watches[i])
        }
        guard let (loop, token) = unwatch else { return }
        if let token { loop.unwatch(lines[i].line.eventFD, token) }
        report(i, error)
        endIfAllFailed()
    }

    private func report(_ i: Int, _ error: SystemError) {
        onFailure(.line(lines[i].button, error))
    }

    /// Nothing left to read (e.g. the GPIO chip was removed): end, so the service fails and
    /// is restarted, rather than idle without buttons.
    private func endIfAllFailed() {
        guard !lines.isEmpty, state.withLock({ $0?.dead.allSatisfy { $0 } ?? false }) else { return }
        endedContinuation.yield(.allLinesFailed(lines.count))
        endedContinuation.finish()
    }

    /// EPOLLERR/EPOLLHUP (the GPIO chip was removed) as ENODEV, naming the flags.
    static func pollError(_ events: EventLoop.Events, line: any InputLine) -> SystemError {
        let flags = [(EventLoop.Events.error, "EPOLLERR"), (.hangUp, "EPOLLHUP")]
            .filter { events.contains($0.0) }.map(\.1).joined(separator: "|")
        return SystemError(device: "\(line)", operation: "wait for edge events (\(flags))", errno: ENODEV)
    }
}

/// Debounce without added latency, for one button: the first edge counts at once; edges
/// within the lockout window after it are chatter; when the window closes, the level is
/// read once more and a change it settled to is delivered then. Pure: timestamps in.
struct EdgeDebouncer: Sendable, Equatable {
    private(set) var pressed: Bool
    let lockoutNanoseconds: UInt64
    private var lockedUntil: UInt64 = 0
    /// When the level must be read again (chatter was seen inside the window).
    private(set) var recheckAt: UInt64?

    init(pressed: Bool, lockoutNanoseconds: UInt64) {
        self.pressed = pressed
        self.lockoutNanoseconds = lockoutNanoseconds
    }

    /// An edge from the kernel; true if it is a real press/release to deliver.
    mutating func edge(pressed level: Bool, at t: UInt64) -> Bool {
        if t < lockedUntil {
            recheckAt = lockedUntil
            return false
        }
        guard level != pressed else { return false }
        pressed = level
        lockedUntil = t &+ lockoutNanoseconds
        recheckAt = nil
        return true
    }

    /// The level read when the window closed; true if it differs and must be delivered.
    mutating func settle(level: Bool, at t: UInt64) -> Bool {
        recheckAt = nil
        guard level != pressed else { return false }
        pressed = level
        lockedUntil = t &+ lockoutNanoseconds
        return true
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to `0 ... UInt64.max` (a negative lockout is none), with
    /// the whole seconds included: `.seconds(1)` is 1_000_000_000, not 0.
    var clampedNanoseconds: UInt64 {
        UInt64(clamping: attoseconds / 1_000_000_000)
    }
}
