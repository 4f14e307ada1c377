import Platform
import RoundClockCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reads button edges on its own thread with poll(2) on the lines' event fds, so the
/// render loop is never blocked. Debounce without added latency: the first edge acts at
/// once; further edges within the lockout window (default 30 ms) are chatter and are
/// ignored; when the window closes the line is read once more, and if it settled on the
/// other level that edge is delivered then. Failures go to `onFailure` as they happen:
/// a line that fails (read error, or POLLERR/POLLHUP/POLLNVAL: its chip went away) is
/// reported once and left alone, the others keep working; a poll(2) failure other than
/// EINTR is reported and ends the thread.
public final class ButtonReader: @unchecked Sendable {
    // @unchecked: the lines and the debounce state are touched only by the reader thread
    // between start() and stop(); stop() joins the thread before anything else uses them.
    // The thread handle and the wake pipe, which start() and stop() share with any
    // thread, live in `control` behind a mutex; the reader thread gets its end of the
    // pipe as an argument and never reads `control`.
    public typealias Handler = @Sendable (_ button: Button, _ pressed: Bool, _ monotonicNanoseconds: UInt64) -> Void
    public typealias FailureHandler = @Sendable (ButtonFailure) -> Void
    /// poll(2) over `fds` with a timeout in ms: the number ready, or -1 and errno.
    typealias Poll = (_ fds: inout [pollfd], _ timeoutMilliseconds: Int32) -> (ready: Int32, errno: Int32)

    private let lines: [(button: Button, line: any InputLine)]
    private let lockoutNanoseconds: UInt64
    private let handler: Handler
    private let onFailure: FailureHandler
    private let poll: Poll
    private let control = Mutex<(thread: PosixThread?, wakeRead: Int32, wakeWrite: Int32)>((nil, -1, -1))

    /// Requests each button's line: input, both edges, `bias`, active-low as wired. `run`
    /// and the benchmark use `init(buttons:activeLow:bias:lockout:onFailure:clock:events:)`,
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

    init(lines: [(Button, any InputLine)], lockout: Duration, poll: @escaping Poll = ButtonReader.systemPoll,
         onFailure: @escaping FailureHandler, handler: @escaping Handler) {
        self.lines = lines.map { (button: $0.0, line: $0.1) }
        lockoutNanoseconds = lockout.clampedNanoseconds
        self.poll = poll
        self.onFailure = onFailure
        (endedByFailure, endedContinuation) = AsyncStream.makeStream(of: ButtonFailure.self, bufferingPolicy: .bufferingNewest(1))
        self.handler = handler
    }

    static func systemPoll(_ fds: inout [pollfd], _ timeout: Int32) -> (ready: Int32, errno: Int32) {
        let ready = Glibc.poll(&fds, nfds_t(fds.count), timeout)
        return (ready, ready < 0 ? errno : 0)
    }

    /// Yields once, and finishes, if the reader thread ends on its own (a poll(2) failure,
    /// or every line failed): `ButtonService` then fails so systemd restarts the service.
    public let endedByFailure: AsyncStream<ButtonFailure>
    private let endedContinuation: AsyncStream<ButtonFailure>.Continuation

    /// Whether the reader thread was started and not yet stopped (it may have ended on
    /// a poll failure; `stop()` still joins it).
    public var isRunning: Bool { control.withLock { $0.thread != nil } }

    /// Starts the reader thread.
    /// Starts the reader thread (once; a second call while it runs does nothing).
    public func start() throws(SystemError) {
        try control.withLock { (control) throws(SystemError) in
            guard control.thread == nil else { return }
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw SystemError(device: "button reader", operation: "pipe", errno: errno) }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            let wakeRead = fds[0]
            let thread: PosixThread
            do throws(ThreadStartError) {
                thread = try PosixThread.start(named: "button reader") { self.run(wakeRead: wakeRead) }
            } catch {
                close(fds[0])
                close(fds[1])
                throw SystemError(device: error.name, operation: "pthread_create", errno: error.errno)
            }
            control = (thread, fds[0], fds[1])
        }
    }

    /// Stops and joins the thread.
    public func stop() {
        control.withLock { control in
            guard let thread = control.thread else { return }
            var byte: UInt8 = 1
            _ = write(control.wakeWrite, &byte, 1)
            thread.join()
            close(control.wakeRead)
            close(control.wakeWrite)
            control = (nil, -1, -1)
        }
    }

    private func run(wakeRead: Int32) {
        var dead = [Bool](repeating: false, count: lines.count)
        func fail(_ i: Int, _ error: SystemError) {
            guard !dead[i] else { return }
            dead[i] = true
            onFailure(.line(lines[i].button, error))
        }
        var state: [EdgeDebouncer] = lines.indices.map { i in
            var level = false
            do throws(SystemError) { level = try lines[i].line.value() } catch { fail(i, error) }
            return EdgeDebouncer(pressed: level, lockoutNanoseconds: lockoutNanoseconds)
        }
        while true {
            var pollfds = lines.indices.map { pollfd(fd: dead[$0] ? -1 : lines[$0].line.eventFD, events: Int16(POLLIN), revents: 0) }
            pollfds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            let now = monotonicNanoseconds()
            let nextRecheck = lines.indices.filter { !dead[$0] }.compactMap { state[$0].recheckAt }.min()
            let timeout: Int32 = nextRecheck.map { $0 > now ? Int32(min(1000, ($0 - now) / 1_000_000 + 1)) : 0 } ?? -1
            let polled = poll(&pollfds, timeout)
            if polled.ready < 0 {
                if polled.errno == EINTR { continue }
                let names = lines.map { "\($0.button.rawValue) \($0.line)" }.joined(separator: ", ")
                let failure = ButtonFailure.reader(SystemError(device: "button lines \(names)", operation: "poll", errno: polled.errno))
                onFailure(failure)
                endedContinuation.yield(failure)
                endedContinuation.finish()
                return
            }
            if pollfds[lines.count].revents != 0 { return }
            for i in lines.indices where !dead[i] {
                let revents = pollfds[i].revents
                if revents & Int16(POLLIN) != 0 {
                    do {
                        let event = try lines[i].line.readEvent()
                        if state[i].edge(pressed: event.active, at: event.timestampNanoseconds) {
                            handler(lines[i].button, event.active, event.timestampNanoseconds)
                        }
                    } catch {
                        fail(i, error)
                    }
                } else if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                    // Without this, poll(2) would return at once forever: a busy loop.
                    fail(i, Self.pollError(revents, line: lines[i].line))
                }
            }
            if !lines.isEmpty, dead.allSatisfy({ $0 }) {
                // Nothing left to read (e.g. the GPIO chip was removed): end, so the
                // service fails and is restarted, rather than idle without buttons.
                endedContinuation.yield(.allLinesFailed(lines.count))
                endedContinuation.finish()
                return
            }
            let later = monotonicNanoseconds()
            for i in lines.indices where !dead[i] && (state[i].recheckAt ?? .max) <= later {
                do {
                    let level = try lines[i].line.value()
                    if state[i].settle(level: level, at: later) { handler(lines[i].button, level, later) }
                } catch {
                    fail(i, error)
                }
            }
        }
    }

    /// POLLNVAL (the fd is not open) as EBADF; POLLERR/POLLHUP (the GPIO chip was
    /// removed) as ENODEV.
    static func pollError(_ revents: Int16, line: any InputLine) -> SystemError {
        let invalid = revents & Int16(POLLNVAL) != 0
        let flags = [(POLLERR, "POLLERR"), (POLLHUP, "POLLHUP"), (POLLNVAL, "POLLNVAL")]
            .filter { revents & Int16($0.0) != 0 }.map(\.1).joined(separator: "|")
        return SystemError(device: "\(line)", operation: "poll edge events (\(flags))", errno: invalid ? EBADF : ENODEV)
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
