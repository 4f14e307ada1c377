#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to the standard streams (the C `stdout`/`stderr` globals are not
/// concurrency-safe to touch from Swift 6).
enum Output {
    static func write(_ text: String, to fd: Int32 = STDOUT_FILENO) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(n)
        }
    }
}

func printError(_ message: String) {
    Output.write("roundclock: \(message)\n", to: STDERR_FILENO)
}
