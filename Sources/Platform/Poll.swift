#if canImport(Glibc)
import Glibc
#endif

/// poll(2) over `fds` (their `revents` filled in), `timeout` ms (-1: no limit); the
/// number of ready descriptors.
public func pollDescriptors(_ fds: inout [pollfd], timeout: Int32, subject: String) throws(SystemError) -> Int {
    let count = nfds_t(fds.count)
    let r = fds.withUnsafeMutableBufferPointer { buffer in retryingEINTR { poll(buffer.baseAddress, count, timeout) } }
    guard r.result >= 0 else { throw SystemError(subject, "poll", errno: .init(rawValue: r.errno), phrasing: .subjectFirst) }
    return Int(r.result)
}

/// A self-pipe whose read end a thread watches (poll(2), or an `EventLoop`'s epoll) to be
/// woken from any thread. Both ends non-blocking: a full pipe already means "wake up", so
/// `signal` never blocks.
public final class WakeEvent: Sendable {
    /// The end to poll.
    public let fd: Int32
    private let writeEnd: Int32

    public init(subject: String) throws(SystemError) {
        var ends: [Int32] = [-1, -1]
        try SystemError.check(subject, "pipe", .subjectFirst) { pipe(&ends) }
        for end in ends {
            try SystemError.check(subject, "fcntl F_SETFD", .subjectFirst) { fcntl(end, F_SETFD, FD_CLOEXEC) }
            try SystemError.check(subject, "fcntl F_SETFL", .subjectFirst) { fcntl(end, F_SETFL, O_NONBLOCK) }
        }
        fd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fd)
        close(writeEnd)
    }

    /// Makes the read end readable (one byte; never blocks).
    public func signal() {
        var byte: UInt8 = 1
        _ = retryingEINTR { write(writeEnd, &byte, 1) }
    }

    /// Empties the pipe after a wake-up.
    public func clear() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while bytes.withUnsafeMutableBytes({ raw in retryingEINTR { read(fd, raw.baseAddress, 256) }.result }) == 256 {}
    }
}
