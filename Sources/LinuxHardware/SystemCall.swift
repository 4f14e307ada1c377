#if canImport(Glibc)
import Glibc
#endif

/// A failed system call on a device: names the device, the operation and errno.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    public var device: String
    public var operation: String
    public var errno: Int32
    public init(device: String, operation: String, errno: Int32) {
        self.device = device
        self.operation = operation
        self.errno = errno
    }
    public var description: String {
        "\(device): \(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Runs `call` until it does not fail with EINTR: the one place interrupted system
/// calls are retried. Returns the result, or -1 with the final errno.
@inline(__always)
func retryingEINTR(_ call: () -> Int32) -> (result: Int32, errno: Int32) {
    while true {
        let result = call()
        if result >= 0 { return (result, 0) }
        let code = Glibc.errno
        if code != EINTR { return (result, code) }
    }
}

/// Names of `/dev` entries starting with `prefix` followed by a number, sorted by number.
func deviceNodes(prefix: String) -> [(path: String, number: Int)] {
    guard let dir = opendir("/dev") else { return [] }
    defer { closedir(dir) }
    var found: [(String, Int)] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        guard name.hasPrefix(prefix), let n = Int(name.dropFirst(prefix.count)) else { continue }
        found.append(("/dev/\(name)", n))
    }
    return found.sorted { $0.1 < $1.1 }
}

/// Writes `value` to a sysfs or procfs attribute (a gpio-sim line's `pull`,
/// /proc/TID/timerslack_ns) in one write(2);
/// errors name the path and errno.
public func writeSysfsAttribute(_ path: String, _ value: String) throws(SystemError) {
    let opened = retryingEINTR { open(path, O_WRONLY | O_CLOEXEC) }
    guard opened.result >= 0 else { throw SystemError(device: path, operation: "open", errno: opened.errno) }
    defer { close(opened.result) }
    let bytes = Array(value.utf8)
    let written = retryingEINTR { Int32(truncatingIfNeeded: write(opened.result, bytes, bytes.count)) }
    guard written.result == Int32(bytes.count) else {
        throw SystemError(device: path, operation: "write \"\(value)\"", errno: written.result < 0 ? written.errno : EIO)
    }
}
