import ArgumentParser
import CommandLineSupport
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// `roundclock-bench`: the timing and cost benchmarks, an executable of their own so that
/// the `roundclock` binary that ships to the Pi does not carry them (as swift-nio ships its
/// performance tester apart from the library).
@main
struct RoundClockBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundclock-bench",
        abstract: "Timing and cost benchmarks: our render loop against naive loops, in one run.",
        subcommands: [Lateness.self, Drift.self, Cost.self, Buttons.self, Control.self, Timers.self, Smoke.self])

    /// One line on stderr for a usage or run error, exit statuses as README's "Exit codes".
    static func main() async {
        // Output piped into a reader that went away (`| head`) is a write error, not a kill.
        signal(SIGPIPE, SIG_IGN)
        await mainWithOneLineErrors(printError: printError)
    }
}

func printError(_ message: String) {
    StandardStream.error.write("roundclock-bench: \(message)\n")
}
