#if canImport(Glibc)
import Glibc
#endif

/// Opening the files a user or a crash can put anything at (config, board, state, frames):
/// never blocking in open(2), never reading unbounded data, the file's type checked.
extension POSIXIO {
    /// What `openWithoutBlocking` got: the descriptor, the failed step and errno, or the
    /// type of a path that is not allowed.
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

    /// open(2) `path` without ever blocking: `flags | O_NONBLOCK | O_CLOEXEC` (a FIFO with
    /// no writer or no reader must not hang start-up; `mode` when creating), then fstat(2)
    /// keeps it only if its type is in `allowed`, then `O_NONBLOCK` is cleared (fcntl(2)
    /// F_SETFL) so reads and writes behave as usual. With `O_NOFOLLOW` in `flags` a symbolic
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
}
