#if canImport(Glibc)
import Glibc
#endif

/// A failed file operation on the state directory: which step, which path, which errno.
public struct PersistenceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `open`, `write`, `fsync`, `close`, `rename`, `fsync directory`, `read`, ...
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
