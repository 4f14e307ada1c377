#if canImport(Glibc)
import Glibc
#endif

/// The read(2)/write(2) loops shared by the state files, the journal lines, the CLI's
/// output and the benchmarks' /proc reads: EINTR is retried and short transfers are
/// continued here, once. (LinuxHardware has its own `retryingEINTR` for the device calls:
/// it does not depend on this target.)
public enum POSIXIO {
    /// Writes all of `bytes` to `fd`. Returns 0, or the errno that stopped it.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            rest = rest.dropFirst(n)
        }
        return 0
    }

    /// Reads `fd` to its end, but never more than `limit + 1` bytes. Returns the bytes read
    /// and 0, or the bytes read so far and the errno that stopped it (EFBIG once more than
    /// `limit` bytes came: the rest is not read, so `/dev/zero` or a huge file costs nothing).
    public static func readAll(_ fd: Int32, limit: Int) -> (bytes: [UInt8], errno: Int32) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let wanted = min(buffer.count, limit + 1 - bytes.count)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if n < 0 {
                if errno == EINTR { continue }
                return (bytes, errno)
            }
            if n == 0 { return (bytes, 0) }
            bytes += buffer[0..<n]
            if bytes.count > limit { return (bytes, EFBIG) }
        }
    }

    /// A file opened without ever blocking in open(2): `O_NONBLOCK` (a FIFO with no writer
    /// or no reader must not hang start-up), then fstat(2) checks its type against
    /// `allowed`, then `O_NONBLOCK` is cleared (fcntl(2) F_SETFL) so reads and writes behave
    /// as usual. A failure is the step and errno; a type not allowed is `.wrongType`
    /// naming what the path is.
    public enum OpenResult {
        case opened(Int32)
        case failed(operation: String, errno: Int32)
        case wrongType(FileType)
    }

    /// What fstat(2) says a path is (`st_mode & S_IFMT`), in words for error lines.
    public enum FileType: String, Sendable {
        case regular = "a regular file", directory = "a directory", fifo = "a FIFO (named pipe)",
             characterDevice = "a character device", blockDevice = "a block device", socket = "a socket",
             symlink = "a symbolic link", other = "not a regular file"

        init(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: self = .regular
            case S_IFDIR: self = .directory
            case S_IFIFO: self = .fifo
            case S_IFCHR: self = .characterDevice
            case S_IFBLK: self = .blockDevice
            case S_IFSOCK: self = .socket
            case S_IFLNK: self = .symlink
            default: self = .other
            }
        }
    }

    /// open(2) `path` with `flags | O_NONBLOCK | O_CLOEXEC` (and `mode` when creating),
    /// keeping it only if its type is in `allowed`. With `O_NOFOLLOW` in `flags` a symbolic
    /// link itself is refused (ELOOP → `.wrongType(.symlink)`).
    public static func openWithoutBlocking(_ path: String, flags: Int32, mode: mode_t = 0o644,
                                           allowed: Set<FileType>) -> OpenResult {
        let fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, mode)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP, flags & O_NOFOLLOW != 0 { return .wrongType(.symlink) }
            // A directory opened for writing: EISDIR says what it is.
            if code == EISDIR { return .wrongType(.directory) }
            return .failed(operation: "open", errno: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            return .failed(operation: "fstat", errno: code)
        }
        let type = FileType(mode: info.st_mode)
        guard allowed.contains(type) else {
            close(fd)
            return .wrongType(type)
        }
        let status = fcntl(fd, F_GETFL)
        guard status >= 0, fcntl(fd, F_SETFL, status & ~O_NONBLOCK) == 0 else {
            let code = errno
            close(fd)
            return .failed(operation: "fcntl", errno: code)
        }
        return .opened(fd)
    }

    /// Reads a small regular file whole: opened with `openWithoutBlocking` (anything but a
    /// regular file is refused before a byte is read), at most `limit` bytes.
    public static func readRegularFile(_ path: String, limit: Int, followSymlinks: Bool = true) -> ReadResult {
        switch openWithoutBlocking(path, flags: O_RDONLY | (followSymlinks ? 0 : O_NOFOLLOW), allowed: [.regular]) {
        case .failed(let operation, let code): return .failed(operation: operation, errno: code)
        case .wrongType(let type): return .wrongType(type)
        case .opened(let fd):
            defer { close(fd) }
            let (bytes, code) = readAll(fd, limit: limit)
            if code == EFBIG { return .tooLarge }
            guard code == 0 else { return .failed(operation: "read", errno: code) }
            return .bytes(bytes)
        }
    }

    public enum ReadResult {
        case bytes([UInt8])
        case failed(operation: String, errno: Int32)
        case wrongType(FileType)
        /// More than the limit.
        case tooLarge
    }

    /// strerror(3) and the number, as every error line shows them.
    public static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
