import RoundClockCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reads button edges on its own thread with poll(2) on the lines' event fds, so the
/// render loop is never blocked. Debounce without added latency: the first edge acts at
/// once; further edges within the lockout window (default 30 ms) are chatter and are
/// ignored; when the window closes the line is read once more, and if it settled on the
/// other level that edge is delivered then.
public final class ButtonReader: @unchecked Sendable {
    // @unchecked: the lines are touched only by the reader thread between start() and
    // stop(); stop() joins the thread before anything else uses them.
    public typealias Handler = @Sendable (_ button: Button, _ pressed: Bool, _ monotonicNanoseconds: UInt64) -> Void

    private let lines: [(button: Button, line: RequestedLine)]
    private let lockoutNanoseconds: UInt64
    private let handler: Handler
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)
    private var thread: pthread_t?
    /// A line that failed to read: reported once, then that button is left alone.
    public let failures = Mutex([String]())

    /// Requests each button's line: input, both edges, `bias`, active-low as wired.
    public init(buttons: [Button: String], activeLow: Bool, bias: GPIOBias, lockout: Duration = .milliseconds(30),
                useKernelDebounce: Bool = false, handler: @escaping Handler) throws(SystemError) {
        var requested: [(Button, RequestedLine)] = []
        for button in Button.allCases {
            guard let spec = buttons[button] else { continue }
            let location = try GPIOLines.locate(spec)
            let micros = useKernelDebounce ? UInt32(lockout.components.attoseconds / 1_000_000_000_000) : 0
            requested.append((button, try RequestedLine.input(location, consumer: "roundclock-\(button.rawValue)",
                                                               activeLow: activeLow, bias: bias, debounceMicroseconds: micros)))
        }
        lines = requested
        lockoutNanoseconds = UInt64(lockout.components.seconds) * 1_000_000_000 + UInt64(lockout.components.attoseconds / 1_000_000_000)
        self.handler = handler
    }

    /// Starts the reader thread.
    public func start() throws(SystemError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SystemError(device: "button reader", operation: "pipe", errno: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wakePipe = (fds[0], fds[1])
        let box = Unmanaged.passRetained(self)
        var id = pthread_t()
        let rc = pthread_create(&id, nil, { raw in
            let reader = Unmanaged<ButtonReader>.fromOpaque(raw!).takeRetainedValue()
            reader.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            throw SystemError(device: "button reader", operation: "pthread_create", errno: rc)
        }
        thread = id
    }

    /// Stops and joins the thread.
    public func stop() {
        guard let thread else { return }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
        pthread_join(thread, nil)
        self.thread = nil
        close(wakePipe.read)
        close(wakePipe.write)
    }

    private struct Debounce {
        var pressed = false
        var lockedUntil: UInt64 = 0
        var recheck = false
    }

    private func run() {
        var state = [Debounce](repeating: Debounce(), count: lines.count)
        for (i, entry) in lines.enumerated() { state[i].pressed = (try? entry.line.value()) ?? false }
        var dead = [Bool](repeating: false, count: lines.count)
        while true {
            var pollfds = lines.map { pollfd(fd: $0.line.eventFD, events: Int16(POLLIN), revents: 0) }
            pollfds.append(pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0))
            for (i, isDead) in dead.enumerated() where isDead { pollfds[i].fd = -1 }
            let now = monotonicNanoseconds()
            let nextRecheck = state.filter(\.recheck).map(\.lockedUntil).min()
            let timeout: Int32 = nextRecheck.map { $0 > now ? Int32(min(1000, ($0 - now) / 1_000_000 + 1)) : 0 } ?? -1
            let ready = poll(&pollfds, nfds_t(pollfds.count), timeout)
            if ready < 0 && errno != EINTR { return }
            if pollfds[lines.count].revents != 0 { return }
            for i in lines.indices where pollfds[i].revents & Int16(POLLIN) != 0 {
                do {
                    let event = try lines[i].line.readEvent()
                    accept(i, pressed: event.active, at: event.timestampNanoseconds, state: &state)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    dead[i] = true
                }
            }
            let later = monotonicNanoseconds()
            for i in lines.indices where state[i].recheck && state[i].lockedUntil <= later {
                state[i].recheck = false
                if let level = try? lines[i].line.value(), level != state[i].pressed {
                    accept(i, pressed: level, at: later, state: &state)
                }
            }
        }
    }

    private func accept(_ i: Int, pressed: Bool, at timestamp: UInt64, state: inout [Debounce]) {
        if timestamp < state[i].lockedUntil || pressed == state[i].pressed {
            // Chatter inside the window, or a repeat of the level we already have.
            if timestamp < state[i].lockedUntil { state[i].recheck = true }
            return
        }
        state[i].pressed = pressed
        state[i].lockedUntil = timestamp + lockoutNanoseconds
        state[i].recheck = true
        handler(lines[i].button, pressed, timestamp)
    }
}
