#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// Opening the files a user or a crash can put anything at (config, board, state, frames):
/// never blocking in open(2), the file's type checked before a byte moves.
extension FileDescriptor {
    /// What `openWithoutBlocking` got: the descriptor, the failed step and errno, or the
    /// kind of a path that is not allowed.
    enum OpenResult {
        case opened(FileDescriptor)
        case failed(operation: String, errno: Errno)
        case wrongKind(FileKind)
    }

    /// open(2) `path` without ever blocking: `.nonBlocking` and `.closeOnExec` added to
    /// `options` (a FIFO with no writer or no reader must not hang start-up; created with
    /// mode 0644), then fstat(2) keeps it only if its kind is in `allowed`, then `O_NONBLOCK`
    /// is cleared (fcntl(2) F_SETFL) so reads and writes behave as usual. With `.noFollow`
    /// in `options` a symbolic link itself is refused (ELOOP → `.wrongKind(.symlink)`).
    static func openWithoutBlocking(_ path: String, _ mode: AccessMode, options: OpenOptions = [],
                                    allowed: Set<FileKind>) -> OpenResult {
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try errnoThrowing {
                try FileDescriptor.open(FilePath(path), mode, options: options.union([.nonBlocking, .closeOnExec]),
                                        permissions: FilePermissions(rawValue: 0o644))
            }
        } catch {
            if error == .tooManySymbolicLinkLevels, options.contains(.noFollow) { return .wrongKind(.symlink) }
            // A directory opened for writing: EISDIR says what it is.
            if error == .isDirectory { return .wrongKind(.directory) }
            return .failed(operation: "open", errno: error)
        }
        let kind: FileKind
        do throws(Errno) {
            kind = FileKind(try fd.stat().type)
        } catch {
            try? fd.close()
            return .failed(operation: "fstat", errno: error)
        }
        guard allowed.contains(kind) else {
            try? fd.close()
            return .wrongKind(kind)
        }
        let flags = retryingEINTR { fcntl(fd.rawValue, F_GETFL) }
        let cleared = flags.result < 0 ? flags : retryingEINTR { fcntl(fd.rawValue, F_SETFL, flags.result & ~O_NONBLOCK) }
        guard cleared.result >= 0 else {
            try? fd.close()
            return .failed(operation: "fcntl", errno: Errno(rawValue: cleared.errno))
        }
        return .opened(fd)
    }

    /// Reads to the end, but never more than `limit + 1` bytes: more than `limit` throws
    /// `.fileTooLarge` (EFBIG) without reading the rest, so `/dev/zero` or a huge file
    /// costs nothing. EINTR is retried by swift-system.
    func readAll(limit: Int) throws(Errno) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let wanted = min(buffer.count, limit + 1 - bytes.count)
            let n = try errnoThrowing {
                try buffer.withUnsafeMutableBytes { try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) }
            }
            if n == 0 { return bytes }
            bytes += buffer[..<n]
            if bytes.count > limit { throw .fileTooLarge }
        }
    }
}

/// What fstat(2) says a path is (`st_mode & S_IFMT`), in words for error lines.
public enum FileKind: String, Sendable {
    case regular = "a regular file", directory = "a directory", fifo = "a FIFO (named pipe)",
         characterDevice = "a character device", blockDevice = "a block device", socket = "a socket",
         symlink = "a symbolic link", other = "not a regular file"

    init(_ type: FileType) {
        switch type {
        case .regular: self = .regular
        case .directory: self = .directory
        case .fifo: self = .fifo
        case .characterSpecial: self = .characterDevice
        case .blockSpecial: self = .blockDevice
        case .socket: self = .socket
        case .symbolicLink: self = .symlink
        default: self = .other
        }
    }
}
