import CEventLoop
import Synchronization
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// One thread that does all of the clock's waiting in one place, in the shape of systemd's
/// `sd-event` and swift-nio's `SelectableEventLoop`: it blocks only in epoll(7), over an
/// eventfd (work handed in from other threads), a timerfd armed at the earliest absolute
/// CLOCK_MONOTONIC deadline, and the descriptors it is asked to watch (a signalfd, GPIO
/// line requests, sockets). It is also a `TaskExecutor`: a task that prefers it (SE-0417)
/// runs its jobs here, between the handlers, so an `await` that a timer or a watched
/// descriptor resumes costs one wake-up of this one thread.
///
/// Handlers, timers and jobs run one at a time, in order, on this thread; none may block.
/// Everything may be called from any thread.
public final class EventLoop: TaskExecutor, Sendable {
    /// What `watch` and `schedule` return, to cancel them.
    public struct Token: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    /// What epoll reported for a watched descriptor (epoll_wait(2): EPOLLIN, EPOLLERR, EPOLLHUP).
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Ready to read.
        public static let input = Events(rawValue: 0x001)
        /// Ready to write (only reported when watched for).
        public static let output = Events(rawValue: 0x004)
        /// An error condition (always reported).
        public static let error = Events(rawValue: 0x008)
        /// Hang-up: the peer or the device went away (always reported).
        public static let hangUp = Events(rawValue: 0x010)
    }

    public let name: String
    private let epoll: Int32
    private let wakeFD: Int32
    private let timerFD: Int32

    private struct Timer {
        var deadline: Duration
        var token: UInt64
        var handler: @Sendable () -> Void
    }
    private struct State {
        var jobs: [UnownedJob] = []
        var work: [@Sendable () -> Void] = []
        /// Sorted by (deadline, token): the earliest first, equal deadlines in order of scheduling.
        var timers: [Timer] = []
        var watches: [UInt64: @Sendable (Events) -> Void] = [:]
        var nextToken: UInt64 = Self.firstToken
        /// The thread is in, or about to enter, epoll_wait: work from elsewhere must wake it.
        var sleeping = false
        /// The instant the timerfd is armed at (nil: disarmed).
        var armedAt: Duration?
        var finishing = false
        var thread: pthread_t?

        /// Tokens 0 and 1 are the eventfd's and the timerfd's.
        static let firstToken: UInt64 = 2

        mutating func newToken() -> UInt64 {
            defer { nextToken += 1 }
            return nextToken
        }

        /// Whether the loop was sleeping (and must be woken); it is not any more.
        mutating func takeSleeping() -> Bool {
            defer { sleeping = false }
            return sleeping
        }
    }
    private let state = Mutex(State())
    private static let wakeToken: UInt64 = 0
    private static let timerToken: UInt64 = 1

    /// Creates the descriptors and starts the thread named `name` (`top -H` shows it).
    public init(name: String) throws(SystemError) {
        self.name = name
        let subject = "event loop \(name)"
        epoll = try Self.created(subject, "epoll_create1") { rc_epoll_create() }
        do {
            wakeFD = try Self.created(subject, "eventfd") { rc_eventfd_create() }
        } catch {
            close(epoll)
            throw error
        }
        do {
            timerFD = try Self.created(subject, "timerfd_create") { rc_timerfd_create() }
        } catch {
            close(epoll)
            close(wakeFD)
            throw error
        }
        do {
            try SystemError.check(subject, "epoll_ctl", .subjectFirst) { rc_epoll_watch(epoll, wakeFD, Self.wakeToken, Events.input.rawValue, 0) }
            try SystemError.check(subject, "epoll_ctl", .subjectFirst) { rc_epoll_watch(epoll, timerFD, Self.timerToken, Events.input.rawValue, 0) }
            try PosixThread.start(named: name) { self.serve() }.detach()
        } catch let error as SystemError {
            for fd in [epoll, wakeFD, timerFD] { close(fd) }
            throw error
        } catch {
            for fd in [epoll, wakeFD, timerFD] { close(fd) }
            throw SystemError(subject, "pthread_create", errno: Errno(rawValue: (error as? ThreadStartError)?.errno ?? EAGAIN),
                              phrasing: .subjectFirst)
        }
    }

    deinit {
        for fd in [epoll, wakeFD, timerFD] { close(fd) }
    }

    /// Whether the caller runs on this loop's thread.
    public var inLoopThread: Bool {
        let thread = state.withLock { $0.thread }
        return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        wakeIfSleeping(state.withLock { s in
            s.jobs.append(job)
            return s.takeSleeping()
        })
    }

    /// Runs `work` on the loop's thread, after what is already queued.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        wakeIfSleeping(state.withLock { s in
            s.work.append(work)
            return s.takeSleeping()
        })
    }

    /// Runs `handler` on the loop's thread once CLOCK_MONOTONIC reads `deadline` or later.
    @discardableResult
    public func schedule(atMonotonic deadline: Duration, _ handler: @escaping @Sendable () -> Void) -> Token {
        state.withLock { s in
            let token = s.newToken()
            let index = s.timers.firstIndex { ($0.deadline, $0.token) > (deadline, token) } ?? s.timers.endIndex
            s.timers.insert(Timer(deadline: deadline, token: token, handler: handler), at: index)
            // A sleeping loop waits on the timerfd as armed: move it earlier from here, without a wake-up.
            if index == 0, s.sleeping { arm(&s) }
            return Token(value: token)
        }
    }

    /// Cancels a timer that is not yet due (nothing if it ran; one already taken to run in
    /// this pass of the loop still runs, so a handler checks its own state).
    public func cancel(_ token: Token) {
        state.withLock { s in
            s.timers.removeAll { $0.token == token.value }
            // A sleeping loop would otherwise wake for nothing at the cancelled deadline.
            if s.sleeping { arm(&s) }
        }
    }

    /// Calls `handler` on the loop's thread with the epoll events each time `fd` is ready
    /// for `interest` (or has an error or a hang-up, always reported), until `unwatch`. The
    /// caller keeps `fd` open until then; a level-triggered watch fires again while input is
    /// left unread.
    public func watch(_ fd: Int32, subject: String, for interest: Events = .input,
                      _ handler: @escaping @Sendable (_ events: Events) -> Void) throws(SystemError) -> Token {
        let token = state.withLock { s in
            let token = s.newToken()
            s.watches[token] = handler
            return token
        }
        do throws(SystemError) {
            try SystemError.check(subject, "epoll_ctl", .subjectFirst) { rc_epoll_watch(epoll, fd, token, interest.rawValue, 0) }
        } catch {
            _ = state.withLock { $0.watches.removeValue(forKey: token) }
            throw error
        }
        return Token(value: token)
    }

    /// Changes what a watched `fd` is watched for (empty: only errors and hang-ups).
    public func modify(_ fd: Int32, _ token: Token, for interest: Events) throws(SystemError) {
        try SystemError.check("event loop \(name)", "epoll_ctl", .subjectFirst) { rc_epoll_watch(epoll, fd, token.value, interest.rawValue, 1) }
    }

    /// Stops watching `fd`; its handler is not called again, even for an event already taken.
    public func unwatch(_ fd: Int32, _ token: Token) {
        _ = state.withLock { $0.watches.removeValue(forKey: token.value) }
        _ = retryingEINTR { rc_epoll_remove(epoll, fd) }
    }

    /// Suspends the calling task until CLOCK_MONOTONIC reads `deadline` (a timer on this
    /// loop) or the task is cancelled.
    public func sleep(untilMonotonic deadline: Duration) async {
        let waiter = OnceWaiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.set(continuation)
                let token = schedule(atMonotonic: deadline) { waiter.resume() }
                waiter.onResume { self.cancel(token) }
            }
        } onCancel: {
            waiter.resume()
        }
    }

    /// Ends the thread once the queued jobs and work have run; timers and watches left
    /// are dropped.
    public func finish() {
        wakeIfSleeping(state.withLock { s in
            s.finishing = true
            return s.takeSleeping()
        })
    }

    private func wakeIfSleeping(_ sleeping: Bool) {
        guard sleeping else { return }
        var one: UInt64 = 1
        _ = retryingEINTR { write(wakeFD, &one, 8) }
    }

    /// With the lock held: arms the timerfd at the earliest timer (or disarms it), unless
    /// it is armed there already.
    private func arm(_ s: inout State) {
        let earliest = s.timers.first?.deadline
        guard earliest != s.armedAt else { return }
        // An instant at or before CLOCK_MONOTONIC's zero is due: 1 ns (zero would disarm).
        let (seconds, attoseconds) = max(earliest ?? .zero, .nanoseconds(1)).components
        let armed = rc_timerfd_set(timerFD, earliest == nil ? 0 : 1, seconds, Int(attoseconds / 1_000_000_000)) == 0
        // Not armed (cannot happen with a valid instant): armed again before the next sleep.
        s.armedAt = armed ? earliest : nil
    }

    /// The thread's body: due timers, then queued jobs and work; with nothing left, one
    /// epoll_wait until the earliest timer, a wake-up or a watched descriptor.
    private func serve() {
        state.withLock { $0.thread = pthread_self() }
        var tokens = [UInt64](repeating: 0, count: 16), events = [UInt32](repeating: 0, count: 16)
        while true {
            let due = state.withLock { s -> [Timer] in
                guard let first = s.timers.first else { return [] }
                let now = MonotonicClock.read()
                guard first.deadline <= now else { return [] }
                let count = s.timers.prefix { $0.deadline <= now }.count
                defer { s.timers.removeFirst(count) }
                return Array(s.timers.prefix(count))
            }
            for timer in due { timer.handler() }
            let (jobs, work, finishing) = state.withLock { s in
                defer {
                    s.jobs.removeAll(keepingCapacity: true)
                    s.work.removeAll(keepingCapacity: true)
                }
                return (s.jobs, s.work, s.finishing)
            }
            for item in work { item() }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if !due.isEmpty || !jobs.isEmpty || !work.isEmpty { continue }
            if finishing { break }
            // nil: work is waiting; else epoll_wait's timeout: -1 (the timerfd wakes the loop),
            // or the milliseconds to the earliest timer if the timerfd could not be armed.
            let timeout = state.withLock { s -> Int32? in
                guard s.jobs.isEmpty, s.work.isEmpty, !s.finishing else { return nil }
                let now = MonotonicClock.read()
                if let first = s.timers.first, first.deadline <= now { return nil }
                s.sleeping = true
                arm(&s)
                guard s.armedAt == nil, let first = s.timers.first else { return -1 }
                return Int32(clamping: Int64(((first.deadline - now) / .milliseconds(1)).rounded(.up)))
            }
            guard let timeout else { continue }
            let count = tokens.withUnsafeMutableBufferPointer { t in
                events.withUnsafeMutableBufferPointer { e in
                    retryingEINTR { rc_epoll_wait(epoll, t.baseAddress, e.baseAddress, 16, timeout) }.result
                }
            }
            state.withLock { $0.sleeping = false }
            if count < 0 {
                // EBADF, EINVAL: not for a loop that owns its descriptors. Never a busy loop.
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
            }
            for index in 0..<max(0, Int(count)) {
                switch tokens[index] {
                case Self.wakeToken:
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                case Self.timerToken:
                    var expirations: UInt64 = 0
                    _ = read(timerFD, &expirations, 8)
                    // Armed again, if still needed, before the next sleep.
                    state.withLock { $0.armedAt = nil }
                default:
                    let handler = state.withLock { $0.watches[tokens[index]] }
                    handler?(Events(rawValue: events[index]))
                }
            }
        }
    }

    private static func created(_ subject: String, _ operation: String, _ call: () -> Int32) throws(SystemError) -> Int32 {
        let fd = call()
        guard fd >= 0 else { throw SystemError(subject, operation, errno: Errno(rawValue: errno), phrasing: .subjectFirst) }
        return fd
    }
}

/// A continuation resumed exactly once, by whichever comes first (a timer, an event,
/// cancellation), even if that comes before the continuation is set; then `onResume`'s
/// cleanup runs once.
public final class OnceWaiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var resumed = false
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    public init() {}

    public func set(_ continuation: CheckedContinuation<Void, Never>) {
        let early = state.withLock { s -> Bool in
            if s.resumed { return true }
            s.continuation = continuation
            return false
        }
        if early { continuation.resume() }
    }

    /// Runs `cleanup` when resumed (at once if it already was).
    public func onResume(_ cleanup: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.resumed { return true }
            s.cleanup = cleanup
            return false
        }
        if now { cleanup() }
    }

    public func resume() {
        let (continuation, cleanup) = state.withLock { s -> (CheckedContinuation<Void, Never>?, (@Sendable () -> Void)?) in
            guard !s.resumed else { return (nil, nil) }
            s.resumed = true
            defer { s.continuation = nil; s.cleanup = nil }
            return (s.continuation, s.cleanup)
        }
        cleanup?()
        continuation?.resume()
    }
}
