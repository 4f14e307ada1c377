import CEventLoop
import Synchronization
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM, SIGINT and SIGHUP for `run`, taken from the process's first line on and handed
/// to swift-service-lifecycle's graceful shutdown once the service group runs (the service,
/// `ShutdownSignals.Service`, is in RoundClockService; this is the signal plumbing).
///
/// `install`, first thing in `main` and before any thread starts, blocks the three signals
/// (every thread started later inherits the mask) and opens a signalfd(2) for them. A
/// signal that comes at any time after that, before the group runs included, waits pending
/// in the signalfd, never taken by the default disposition; `next(on:)` reads it on the
/// clock's event loop and ends, which shuts the group down gracefully: state saved,
/// shutdown picture drawn. SIGHUP is a graceful stop like SIGTERM (the unit has no `ExecReload=`).
public enum ShutdownSignals {
    public static let caught: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Blocks the signals in this thread and opens the signalfd (once). Throws naming the call.
    public static func install() throws(SystemError) {
        guard signalDescriptor.withLock({ $0 }) < 0 else { return }
        try SystemError.check("shutdown signals", "pthread_sigmask", .subjectFirst) {
            let rc = caught.withUnsafeBufferPointer { rc_block_signals($0.baseAddress, Int32($0.count)) }
            if rc != 0 { errno = rc; return -1 }
            return 0
        }
        let fd = caught.withUnsafeBufferPointer { rc_signalfd_create($0.baseAddress, Int32($0.count)) }
        guard fd >= 0 else { throw SystemError("shutdown signals", "signalfd", errno: Errno(rawValue: errno), phrasing: .subjectFirst) }
        signalDescriptor.withLock { $0 = fd }
    }

    /// The first caught signal's number, read on `loop`; `nil` if the task was cancelled
    /// first or the signals were not installed.
    public static func next(on loop: EventLoop) async -> Int32? {
        let fd = signalDescriptor.withLock { $0 }
        guard fd >= 0 else { return nil }
        let caught = Mutex<Int32?>(nil)
        let waiter = OnceWaiter()
        guard let token = try? loop.watch(fd, subject: "shutdown signals", { _ in
            // The first signal counts; a read error ends the wait too (the descriptor would
            // stay ready), as SIGTERM: stopping is what a signal here asks for.
            let signal = rc_signalfd_read(fd)
            guard signal != 0 else { return }
            caught.withLock { $0 = $0 ?? (signal > 0 ? signal : SIGTERM) }
            waiter.resume()
        }) else { return nil }
        await withTaskCancellationHandler {
            await withCheckedContinuation { waiter.set($0) }
        } onCancel: {
            waiter.resume()
        }
        loop.unwatch(fd, token)
        return caught.withLock { $0 }
    }

    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }
}

/// The signalfd, opened once by `install`.
private let signalDescriptor = Mutex<Int32>(-1)
