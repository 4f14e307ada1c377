import CommandLineSupport
import Platform

/// Unbuffered writes to the standard streams (see `StandardStream`).
enum Output {
    static func write(_ text: String, to stream: StandardStream = .output) {
        stream.write(text)
    }
}

/// One error line on stderr. Under systemd (stderr is the journal stream) it starts with
/// `<3>` (sd-daemon(3) priority prefix, LOG_ERR), like the logger's lines, so that a config
/// error that stops `run` with exit 78 shows in `journalctl -p err`, not as info.
func printError(_ message: String) {
    let priority = JournalLogHandler.stderrIsJournal() ? "<3>" : ""
    Output.write("\(priority)roundclock: \(message)\n", to: .error)
}

extension SystemError {
    /// For the frames file: EX_CANTCREAT (73) when it could not be opened or created,
    /// EX_IOERR (74) when writing to it failed.
    var exitCode: Int32 { operation == "write" ? ExitStatus.ioError : ExitStatus.cannotCreate }
}
