#if canImport(Glibc)
import Glibc
import Platform
#endif

/// Thin POSIX file helpers for small state files; every failure names the step, the
/// path and errno.
enum FileIO {
    /// The largest state or boot-id file read: 64 KiB (a state file is a few hundred bytes).
    static let smallFileLimit = 65_536

    /// Reads a regular file of at most 64 KiB as UTF-8 without ever blocking or reading more
    /// than 64 KiB + 1 bytes: opened `O_NONBLOCK` (`O_NOFOLLOW` unless `followSymlinks`),
    /// anything but a regular file refused by fstat(2) before a byte is read.
    static func readSmallFile(_ path: String, followSymlinks: Bool = true) throws(PersistenceError) -> String {
        switch POSIXIO.readRegularFile(path, limit: smallFileLimit, followSymlinks: followSymlinks) {
        case .failed(let operation, let code):
            throw PersistenceError(operation: operation, path: path, errno: code)
        case .wrongType(let type):
            throw PersistenceError(operation: "open", path: path, errno: EINVAL, reason: "is \(type.rawValue), not a regular file")
        case .tooLarge:
            throw PersistenceError(operation: "read", path: path, errno: EFBIG, reason: "larger than \(smallFileLimit / 1024) KiB")
        case .bytes(let bytes):
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw PersistenceError(operation: "decode", path: path, errno: EILSEQ, reason: "not UTF-8 text")
            }
            return text
        }
    }

    /// Replaces `path` atomically: writes `temp` (same directory, so rename(2) cannot cross
    /// file systems), fsync(2), close, rename(2) over `path`, then fsync(2) the directory so
    /// the rename itself is durable. On failure the temp file is removed. Whatever was left at
    /// the temp path (a stale file, a FIFO, a symbolic link) is unlinked first and the temp
    /// file created `O_EXCL | O_NOFOLLOW`: a save never blocks or writes through a link.
    static func writeAtomically(_ text: String, path: String, temp: String, directory: String) throws(PersistenceError) {
        unlink(temp)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PersistenceError(operation: "open", path: temp, errno: errno) }
        var closed = false
        do throws(PersistenceError) {
            let code = POSIXIO.writeAll(fd, Array(text.utf8))
            guard code == 0 else { throw PersistenceError(operation: "write", path: temp, errno: code) }
            guard fsync(fd) == 0 else { throw PersistenceError(operation: "fsync", path: temp, errno: errno) }
            closed = true
            guard close(fd) == 0 else { throw PersistenceError(operation: "close", path: temp, errno: errno) }
            guard rename(temp, path) == 0 else { throw PersistenceError(operation: "rename", path: "\(temp) → \(path)", errno: errno) }
        } catch {
            if !closed { close(fd) }
            unlink(temp)
            throw error
        }
        try syncDirectory(directory)
    }

    /// fsync(2) on a directory opened O_RDONLY | O_DIRECTORY: makes renames in it durable.
    static func syncDirectory(_ directory: String) throws(PersistenceError) {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw PersistenceError(operation: "open directory", path: directory, errno: errno) }
        defer { close(dfd) }
        guard fsync(dfd) == 0 else { throw PersistenceError(operation: "fsync directory", path: directory, errno: errno) }
    }
}
