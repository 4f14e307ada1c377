#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// A file opened for writing that never blocks its writer (the render loop): bytes go out
/// only while poll(2) says the descriptor can take them, at most `PIPE_BUF` (4096) at a
/// time (a write of up to PIPE_BUF bytes to a pipe that polls writable does not block);
/// the rest waits in memory for the next write. A reader that stops reading (a pipe left
/// full) therefore never stalls the clock: once `pendingLimit` bytes wait, writing stops
/// and `close` reports it (EX_IOERR). Write errors are remembered and reported on close.
/// Errors read `PATH: OPERATION failed: WHY`.
public struct TextFile: ~Copyable {
    public let path: String
    private var fd: FileDescriptor?
    private var pending: [UInt8] = []
    private var firstError: Errno?
    private var reason: String?
    /// Bytes allowed to wait for a slow reader: 1 MiB (hours of frames).
    static let pendingLimit = 1 << 20
    /// How long `close` waits for a reader to take what is pending.
    static let closeWaitMilliseconds: Int32 = 2_000

    /// Opens `path` for writing without ever blocking: `-` is standard output; otherwise
    /// open(2) `O_WRONLY | O_CREAT | O_NONBLOCK` keeps it only if it is a regular file (then
    /// truncated) or a pipe some reader already holds open (`/dev/stdout` into a pipe, a
    /// FIFO being read; a FIFO with no reader fails at once with ENXIO instead of hanging).
    public init(writingTo path: String) throws(SystemError) {
        // Opened before any stored property is set: Swift 6.0.3 crashes (SIL "memory is not
        // initialized") on a throw out of a ~Copyable struct's init once its defaulted
        // properties exist.
        self.init(path: path, fd: try Self.openForWriting(path))
    }

    private init(path: String, fd: FileDescriptor) {
        self.path = path
        self.fd = fd
    }

    private static func openForWriting(_ path: String) throws(SystemError) -> FileDescriptor {
        func fail(_ errno: Errno, _ reason: String? = nil) -> SystemError {
            SystemError(path, "open for writing", errno: errno, reason: reason, phrasing: .subjectFirst)
        }
        let fd: FileDescriptor
        if path == "-" {
            let copy = retryingEINTR { fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0) }
            guard copy.result >= 0 else { throw fail(Errno(rawValue: copy.errno)) }
            fd = FileDescriptor(rawValue: copy.result)
        } else {
            switch FileDescriptor.openWithoutBlocking(path, .writeOnly, options: .create, allowed: [.regular, .fifo]) {
            case .opened(let opened): fd = opened
            case .failed(_, let errno):
                throw fail(errno, errno == .noSuchAddressOrDevice ? "a FIFO with no reader (open it for reading first, or use -)" : nil)
            case .wrongKind(let kind):
                throw fail(.invalidArgument, "is \(kind.rawValue); use a regular file, a pipe that is open, or - for standard output")
            }
            if (try? fd.stat().type) == .regular {
                do throws(Errno) {
                    try errnoThrowing { try fd.resize(to: 0) }
                } catch {
                    try? fd.close()
                    throw fail(error)
                }
            }
        }
        return fd
    }

    public mutating func write(_ text: String) {
        guard fd != nil, firstError == nil else { return }
        pending += text.utf8
        drain(waitingMilliseconds: 0)
        if firstError == nil, pending.count > Self.pendingLimit {
            stop(.resourceTemporarilyUnavailable, "its reader stopped reading (\(pending.count) bytes were waiting; later frames are not written)")
        }
    }

    /// Writes what is pending (waiting up to 2 s for the reader) and closes; reports the
    /// first write error, if any.
    public mutating func close() throws(SystemError) {
        guard let open = fd else { return }
        if firstError == nil, !pending.isEmpty {
            drain(waitingMilliseconds: Self.closeWaitMilliseconds)
            if !pending.isEmpty { stop(.resourceTemporarilyUnavailable, "its reader did not take the last \(pending.count) bytes within 2 s") }
        }
        fd = nil
        do throws(Errno) { try errnoThrowing { try open.close() } } catch { if firstError == nil { firstError = error } }
        if let firstError { throw SystemError(path, "write", errno: firstError, reason: reason, phrasing: .subjectFirst) }
    }

    /// Writes what is pending while the descriptor is writable, waiting at most
    /// `waitingMilliseconds` for it in all (0: not at all).
    private mutating func drain(waitingMilliseconds: Int32) {
        guard let fd else { return }
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .milliseconds(waitingMilliseconds))
        var written = 0
        defer { pending.removeFirst(min(written, pending.count)) }
        while written < pending.count {
            var ready = pollfd(fd: fd.rawValue, events: Int16(POLLOUT), revents: 0)
            let polled = retryingEINTR {
                poll(&ready, 1, Int32(max(0, (clock.now.duration(to: end) / .milliseconds(1)).rounded(.up))))
            }
            guard polled.result >= 0 else { return stop(Errno(rawValue: polled.errno)) }
            guard polled.result > 0 else { return } // not writable now: the rest waits
            guard ready.revents & Int16(POLLOUT) != 0 else { return stop(.brokenPipe) } // POLLERR/POLLHUP: no reader
            let chunk = min(pending.count - written, Int(PIPE_BUF))
            do throws(Errno) {
                written += try errnoThrowing { try pending[written...].withUnsafeBytes { try fd.write(UnsafeRawBufferPointer(rebasing: $0[..<chunk])) } }
            } catch {
                if error == .resourceTemporarilyUnavailable { continue }
                return stop(error)
            }
        }
    }

    private mutating func stop(_ errno: Errno, _ why: String? = nil) {
        firstError = errno
        reason = why
        pending = []
    }

    deinit { if let fd { try? fd.close() } }
}
