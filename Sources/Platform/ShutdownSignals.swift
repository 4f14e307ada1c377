import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM, SIGINT and SIGHUP for `run`, caught from its first line on and handed to
/// swift-service-lifecycle's graceful shutdown once the service group runs (the service,
/// `ShutdownSignals.Service`, is in RoundClockService; this is the signal plumbing).
///
/// The group installs its own handlers only when it starts, after the config, the devices
/// and the restore: a signal in between would kill the process by the default disposition,
/// without saving. So a sigaction(2) handler is installed first; it
/// only write(2)s the signal number into a non-blocking self-pipe (async-signal-safe, see
/// signal-safety(7)). A signal that comes before the group runs waits in the pipe; the
/// service reads it (`next()`: a DispatchSource on the pipe, never blocking a pool thread) and
/// ends, which shuts the group down gracefully: state saved, shutdown picture drawn.
/// SIGHUP is a graceful stop like SIGTERM (the unit has no `ExecReload=`).
public enum ShutdownSignals {
    public static let caught: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Installs the handler (once) and unblocks the signals in this thread, so one already
    /// pending (blocked by a parent across exec(2)) is caught now. Throws naming the call.
    public static func install() throws(SystemError) {
        guard signalPipeWriteEnd < 0 else { return }
        var ends: [Int32] = [-1, -1]
        try SystemError.check("signal pipe", "pipe", .operationFirst) { pipe(&ends) }
        for end in ends {
            try SystemError.check("signal pipe", "fcntl", .operationFirst) { fcntl(end, F_SETFD, FD_CLOEXEC) }
            try SystemError.check("signal pipe", "fcntl", .operationFirst) { fcntl(end, F_SETFL, O_NONBLOCK) }
        }
        signalPipeReadEnd = ends[0]
        signalPipeWriteEnd = ends[1]
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in caught {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            try SystemError.check("signal \(signal)", "sigaction", .operationFirst) { sigaction(signal, &action, nil) }
            sigaddset(&mask, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
    }

    /// The first caught signal's number, or `nil` if the task was cancelled first.
    public static func next() async -> Int32? {
        let readEnd = signalPipeReadEnd
        guard readEnd >= 0 else { return nil }
        // Only activated and cancelled (both thread-safe in libdispatch).
        nonisolated(unsafe) let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        let once = OnceResume()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
                once.set(continuation)
                source.setEventHandler {
                    var byte: UInt8 = 0
                    guard read(readEnd, &byte, 1) == 1 else { return }
                    source.cancel()
                    once.resume(Int32(byte))
                }
                source.activate()
            }
        } onCancel: {
            source.cancel()
            once.resume(nil)
        }
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

/// A continuation resumed at most once, from whichever of the event and the cancellation
/// comes first (either may even come before the continuation is set).
private final class OnceResume: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Int32?, Never>?)
        case early(Int32?)
        case done
    }
    private let state = Mutex(State.waiting(nil))

    func set(_ continuation: CheckedContinuation<Int32?, Never>) {
        let early: Int32?? = state.withLock { state in
            guard case .early(let value) = state else { state = .waiting(continuation); return nil }
            state = .done
            return .some(value)
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ value: Int32?) {
        let waiting: CheckedContinuation<Int32?, Never>? = state.withLock { state in
            switch state {
            case .waiting(let continuation?):
                state = .done
                return continuation
            case .waiting(nil):
                state = .early(value)
                return nil
            case .early, .done:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }
}

// Written once by `install` before any signal can reach `forwardSignal`; read-only after.
nonisolated(unsafe) private var signalPipeReadEnd: Int32 = -1
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The sigaction(2) handler: one write(2) of the signal number into the self-pipe (errno
/// kept, the pipe is non-blocking: a full pipe drops the byte, one is already waiting).
private func forwardSignal(_ signal: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalPipeWriteEnd, &byte, 1)
    errno = saved
}
