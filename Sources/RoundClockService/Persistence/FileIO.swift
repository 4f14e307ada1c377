#if canImport(Glibc)
import Glibc
#endif

/// Thin POSIX file helpers for small state files; every failure names the step, the
/// path and errno.
enum FileIO {
    /// Reads a file of at most 64 KiB with open(2)/read(2).
    static func readSmallFile(_ path: String) throws(PersistenceError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PersistenceError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        let (bytes, code) = POSIXIO.readAll(fd, limit: 65_536)
        guard code == 0 else { throw PersistenceError(operation: "read", path: path, errno: code) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PersistenceError(operation: "decode UTF-8", path: path, errno: EILSEQ)
        }
        return text
    }

    /// Replaces `path` atomically: writes `temp` (same directory, so rename(2) cannot cross
    /// file systems), fsync(2), close, rename(2) over `path`, then fsync(2) the directory so
    /// the rename itself is durable. On failure the temp file is removed.
    static func writeAtomically(_ text: String, path: String, temp: String, directory: String) throws(PersistenceError) {
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
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
