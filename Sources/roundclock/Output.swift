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

/// One error line on stderr. Under systemd (stderr is the journal stream) it starts with
/// `<3>` (sd-daemon(3) priority prefix, LOG_ERR), like the logger's lines, so that a config
/// error that stops `run` with exit 78 shows in `journalctl -p err`, not as info.
func printError(_ message: String) {
    let priority = JournalLogHandler.stderrIsJournal() ? "<3>" : ""
    Output.write("\(priority)roundclock: \(message)\n", to: STDERR_FILENO)
}
