#if canImport(Glibc)
import Glibc
import Platform
#endif

/// A failed file operation on the state directory: which step, which path, which errno.
public struct PersistenceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `open`, `write`, `fsync`, `close`, `rename`, `fsync directory`, `read`, ...
    public var operation: String
    public var path: String
    public var errno: Int32
    /// Said instead of strerror(errno) when no syscall failed (the path is a FIFO, the file
    /// is too large, not UTF-8, ...).
    public var reason: String?

    public init(operation: String, path: String, errno: Int32, reason: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.reason = reason
    }

    public var description: String {
        "\(operation) \(path): \(reason ?? POSIXIO.describe(errno))"
    }
}
