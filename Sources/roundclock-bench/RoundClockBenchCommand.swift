import ArgumentParser
import CommandLineSupport
import Dispatch
import Platform
import RoundClockService
#if canImport(Glibc)
import Glibc
#endif

/// `roundclock-bench`: the timing and cost benchmarks, an executable of their own so that
/// the `roundclock` binary that ships to the Pi does not carry them (as swift-nio ships its
/// performance tester apart from the library).
@main
enum BenchEntry {
    /// Synchronous, as `roundclock`'s entry: the runs that stand for the `run` process
    /// (`lateness --alone`, `cost`) prefer one event loop of ours (`bench-jobs`) as `run`
    /// prefers its own, so that their process-wide counts are the service's; the side-by-side
    /// runs keep Swift's own pool for the baselines.
    static func main() {
        // Output piped into a reader that went away (`| head`) is a write error, not a kill.
        signal(SIGPIPE, SIG_IGN)
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "cost" || (arguments.first == "lateness" && arguments.contains("--alone")),
           let jobs = try? EventLoop(name: "bench-jobs") {
            Task(executorPreference: jobs) {
                await RoundClockBenchCommand.main()
                exit(0)
            }
        } else {
            // A plain task: one with an executor preference pays for it at every hop.
            Task {
                await RoundClockBenchCommand.main()
                exit(0)
            }
        }
        dispatchMain()
    }
}

struct RoundClockBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundclock-bench",
        abstract: "Timing and cost benchmarks: our render loop against naive loops, in one run.",
        subcommands: [Lateness.self, Drift.self, Cost.self, Buttons.self, Control.self, Timers.self, SoundOnsets.self, Smoke.self])

    /// One line on stderr for a usage or run error, exit statuses as in docs/command-line.md.
    static func main() async {
        await mainWithOneLineErrors(printError: printError)
    }
}

func printError(_ message: String) {
    StandardStream.error.write("roundclock-bench: \(message)\n")
}
