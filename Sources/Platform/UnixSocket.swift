#if canImport(Glibc)
import Glibc
#endif

/// AF_UNIX stream sockets (unix(7)) for the control socket and its clients: every call
/// through `retryingEINTR`, every failure a `SystemError` naming the socket's path.
/// swift-system wraps no socket calls, so these are the raw ones.
public enum UnixSocket {
    /// sun_path holds 108 bytes with the terminating NUL (unix(7)).
    public static let maxPathBytes = 107

    /// A listening socket at `path`, non-blocking and close-on-exec: a stale socket file
    /// left there (nothing listening on it) is replaced; a live one, or any other file, is an
    /// error. The file gets `mode` (chmod(2) between bind and listen, so no client can
    /// connect before) and, when `group` names an existing group, that group (chown(2)):
    /// `group` is whether it did, or why it could not (then the socket stays in the
    /// process's own group: the caller decides whether that is fatal).
    public static func listen(path: String, mode: mode_t, group: String?, backlog: Int32 = 64)
        throws(SystemError) -> (fd: Int32, group: Result<Bool, SystemError>) {
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw SystemError(path, "bind", errno: .fileExists, reason: "a file that is not a socket is in the way", phrasing: .subjectFirst)
            }
            if let live = try? connect(path: path) {
                close(live)
                throw SystemError(path, "bind", errno: .addressInUse, reason: "another process listens on it", phrasing: .subjectFirst)
            }
            try SystemError.check(path, "unlink stale socket", .subjectFirst) { unlink(path) }
        }
        let fd = try socketDescriptor(path, nonBlocking: true)
        do throws(SystemError) {
            try SystemError.check(path, "bind", .subjectFirst) { withAddress(path) { bind(fd, $0, $1) } }
            try SystemError.check(path, "chmod", .subjectFirst) { chmod(path, mode) }
            var grouped = Result<Bool, SystemError>.success(false)
            if let group, let entry = getgrnam(group) {
                let gid = entry.pointee.gr_gid
                do throws(SystemError) {
                    try SystemError.check(path, "chown to group \(group)", .subjectFirst) { chown(path, uid_t.max, gid) }
                    grouped = .success(true)
                } catch {
                    grouped = .failure(error)
                }
            }
            try SystemError.check(path, "listen", .subjectFirst) { Glibc.listen(fd, backlog) }
            return (fd, grouped)
        } catch {
            close(fd)
            throw error
        }
    }

    /// A blocking connection to the socket at `path` (clients, tests, the stale check).
    public static func connect(path: String) throws(SystemError) -> Int32 {
        let fd = try socketDescriptor(path, nonBlocking: false)
        do throws(SystemError) {
            try SystemError.check(path, "connect", .subjectFirst) { withAddress(path) { Glibc.connect(fd, $0, $1) } }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// A waiting connection, made non-blocking and close-on-exec (Glibc's module does not
    /// export accept4(2)); `nil` when none waits.
    public static func accept(_ listener: Int32, path: String) throws(SystemError) -> Int32? {
        let r = retryingEINTR { Glibc.accept(listener, nil, nil) }
        if r.result >= 0 {
            let fd = r.result
            do throws(SystemError) {
                try SystemError.check(path, "fcntl F_SETFD", .subjectFirst) { fcntl(fd, F_SETFD, FD_CLOEXEC) }
                try SystemError.check(path, "fcntl F_SETFL", .subjectFirst) { fcntl(fd, F_SETFL, O_NONBLOCK) }
            } catch {
                close(fd)
                throw error
            }
            return fd
        }
        // A connection that died while waiting (accept(2) "Error handling"): try the next one later.
        if r.errno == EAGAIN || r.errno == EWOULDBLOCK || r.errno == ECONNABORTED { return nil }
        throw SystemError(path, "accept", errno: .init(rawValue: r.errno), phrasing: .subjectFirst)
    }

    /// Reads what is there into `buffer` (replacing its contents): the count, 0 at the end
    /// of the stream, `nil` when nothing is there now.
    public static func receive(_ fd: Int32, into buffer: inout [UInt8], subject: String) throws(SystemError) -> Int? {
        let capacity = buffer.count
        let r = buffer.withUnsafeMutableBytes { raw in retryingEINTR { recv(fd, raw.baseAddress, capacity, 0) } }
        if r.result >= 0 { return r.result }
        if r.errno == EAGAIN || r.errno == EWOULDBLOCK { return nil }
        throw SystemError(subject, "recv", errno: .init(rawValue: r.errno), phrasing: .subjectFirst)
    }

    /// Sends what the socket takes now of `bytes` (MSG_NOSIGNAL: a closed peer is EPIPE,
    /// not SIGPIPE); the count sent, 0 when it takes nothing now.
    public static func send(_ fd: Int32, _ bytes: ArraySlice<UInt8>, subject: String) throws(SystemError) -> Int {
        let r = bytes.withUnsafeBytes { raw in retryingEINTR { Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) } }
        if r.result >= 0 { return r.result }
        if r.errno == EAGAIN || r.errno == EWOULDBLOCK { return 0 }
        throw SystemError(subject, "send", errno: .init(rawValue: r.errno), phrasing: .subjectFirst)
    }

    private static func socketDescriptor(_ path: String, nonBlocking: Bool) throws(SystemError) -> Int32 {
        guard path.utf8.count <= maxPathBytes, !path.isEmpty else {
            throw SystemError(path, "socket", errno: .fileNameTooLong, reason: "a socket path is 1 to \(maxPathBytes) bytes", phrasing: .subjectFirst)
        }
        var type = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let r = retryingEINTR { socket(AF_UNIX, type, 0) }
        guard r.result >= 0 else { throw SystemError(path, "socket", errno: .init(rawValue: r.errno), phrasing: .subjectFirst) }
        return r.result
    }

    /// Calls `body` with `path` as a sockaddr_un (length checked by `socketDescriptor`).
    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(maxPathBytes).enumerated() { raw[i] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
