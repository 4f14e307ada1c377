#if canImport(Glibc)
import Glibc
#endif
import Platform
import RoundClockService

/// Unbuffered writes to the standard streams (the C `stdout`/`stderr` globals are not
/// concurrency-safe to touch from Swift 6).
enum Output {
    static func write(_ text: String, to fd: Int32 = STDOUT_FILENO) {
        POSIXIO.writeAll(fd, Array(text.utf8))
    }
}

func printError(_ message: String) {
    Output.write("roundclock: \(message)\n", to: STDERR_FILENO)
}
