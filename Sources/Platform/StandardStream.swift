import SystemPackage

/// Unbuffered writes to standard output and standard error (the C `stdout`/`stderr`
/// globals are not concurrency-safe to touch from Swift 6): the whole text, EINTR and
/// short writes retried by swift-system's `writeAll`. A failed write is dropped: there is
/// nowhere left to report it.
public enum StandardStream: Sendable {
    case output, error

    public func write(_ text: String) {
        let fd: FileDescriptor = self == .output ? .standardOutput : .standardError
        _ = try? fd.writeAll(text.utf8)
    }
}
