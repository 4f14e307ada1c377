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

    private func run() {
        var state = lines.map { EdgeDebouncer(pressed: (try? $0.line.value()) ?? false, lockoutNanoseconds: lockoutNanoseconds) }
        var dead = [Bool](repeating: false, count: lines.count)
        while true {
            var pollfds = lines.map { pollfd(fd: $0.line.eventFD, events: Int16(POLLIN), revents: 0) }
            pollfds.append(pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0))
            for (i, isDead) in dead.enumerated() where isDead { pollfds[i].fd = -1 }
            let now = monotonicNanoseconds()
            let nextRecheck = state.compactMap(\.recheckAt).min()
            let timeout: Int32 = nextRecheck.map { $0 > now ? Int32(min(1000, ($0 - now) / 1_000_000 + 1)) : 0 } ?? -1
            let ready = poll(&pollfds, nfds_t(pollfds.count), timeout)
            if ready < 0 && errno != EINTR { return }
            if pollfds[lines.count].revents != 0 { return }
            for i in lines.indices where pollfds[i].revents & Int16(POLLIN) != 0 {
                do {
                    let event = try lines[i].line.readEvent()
                    if state[i].edge(pressed: event.active, at: event.timestampNanoseconds) {
                        handler(lines[i].button, event.active, event.timestampNanoseconds)
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    dead[i] = true
                }
            }
            let later = monotonicNanoseconds()
            for i in lines.indices where (state[i].recheckAt ?? .max) <= later {
                if let level = try? lines[i].line.value(), state[i].settle(level: level, at: later) {
                    handler(lines[i].button, level, later)
                }
            }
        }
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
