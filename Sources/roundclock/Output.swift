import CommandLineSupport
import Platform

/// Unbuffered writes to the standard streams (see `StandardStream`).
enum Output {
    static func write(_ text: String, to stream: StandardStream = .output) {
        stream.write(text)
    }
}

func printError(_ message: String) {
    Output.write("roundclock: \(message)\n", to: .error)
}

extension SystemError {
    /// For the frames file: EX_CANTCREAT (73) when it could not be opened or created,
    /// EX_IOERR (74) when writing to it failed.
    var exitCode: Int32 { operation == "write" ? ExitStatus.ioError : ExitStatus.cannotCreate }
}
