#if canImport(Glibc)
import Glibc
#endif

/// A blocking client connection to a Unix stream socket that speaks in lines (the control
/// socket's clients: the benchmark, tests, tools): whole lines out, lines in, each read
/// bounded by a deadline (poll(2)).
public final class LineConnection {
    public let path: String
    public let fd: Int32
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    public init(path: String) throws(SystemError) {
        self.path = path
        fd = try UnixSocket.connect(path: path)
    }

    deinit { close(fd) }

    /// Sends `bytes` and, unless told not to, a newline: all of them (a blocking socket).
    public func send(_ bytes: [UInt8], newline: Bool = true) throws(SystemError) {
        let all = newline ? bytes + [0x0A] : bytes
        var sent = 0
        while sent < all.count {
            let n = try UnixSocket.send(fd, all[sent...], subject: path)
            guard n > 0 else { throw SystemError(path, "send", errno: .wouldBlock, phrasing: .subjectFirst) }
            sent += n
        }
    }

    public func send(_ line: String) throws(SystemError) { try send(Array(line.utf8)) }

    /// The next line (without its newline; invalid UTF-8 repaired), or `nil` at the end of
    /// the stream. Throws ETIMEDOUT when none came within `timeout`.
    public func line(timeout: Duration = .seconds(30)) throws(SystemError) -> String? {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let left = clock.now.duration(to: end)
            guard left > .zero else { throw SystemError(path, "read a line", errno: .timedOut, phrasing: .subjectFirst) }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            let (seconds, attoseconds) = left.components
            let ms = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            guard try pollDescriptors(&fds, timeout: ms, subject: path) > 0 else { continue }
            guard let count = try UnixSocket.receive(fd, into: &chunk, subject: path), count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
    }

    /// Sends `line` and returns the reply line (`nil`: the connection closed).
    public func request(_ line: String, timeout: Duration = .seconds(30)) throws(SystemError) -> String? {
        try send(line)
        return try self.line(timeout: timeout)
    }
}
