import ArgumentParser
import CommandLineSupport
import Dispatch
import Platform
import RoundClockService
#if canImport(Glibc)
import Glibc
#endif

/// The process entry, synchronous so that `run` takes SIGTERM/SIGINT/SIGHUP before anything
/// else happens: an async `main` first parks the main thread in libdispatch's
/// `dispatch_main`, whose sigsuspend(2) with an empty mask takes any pending signal by its
/// default disposition before the first line of Swift code runs. For `run` the signals are
/// blocked and a signalfd opened first (`ShutdownSignals`), before any thread starts, then
/// the clock's event loop (`Run.eventLoop`) is started and the command's task prefers it as
/// its executor: the services, their actors, their child tasks and the render loop run on
/// that one thread, not on libdispatch's worker pool, and the main thread stays parked with
/// the signals blocked. Nothing here runs on the main actor: after `dispatchMain` its queue
/// would be drained by that pool, and in `run` it is never drained.
@main
enum Entry {
    static func main() {
        // A frames pipe (or stdout) whose reader went away is a write error, EPIPE (exit 74
        // for the frames file), not a kill by SIGPIPE in the middle of a round.
        signal(SIGPIPE, SIG_IGN)
        var loop: EventLoop?
        if CommandLine.arguments.dropFirst().first == "run" {
            do {
                try ShutdownSignals.install()
                loop = try Run.eventLoop.get()
            } catch {
                printError("\(error)")
                exit(ExitStatus.software)
            }
        }
        guard let loop else {
            // Not `run`: a plain task (a task with an executor preference pays for it at every hop).
            Task {
                await RoundClockCommand.main()
                exit(0)
            }
            dispatchMain()
        }
        Task(executorPreference: loop) {
            await RoundClockCommand.main()
            exit(0)
        }
        // `run`: parked with the shutdown signals still blocked (dispatch_main would
        // unblock them in its sigsuspend); the command's task ends the process.
        while true { pause() }
    }
}

struct RoundClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundclock",
        abstract: "A drift-free gym round clock for HT16K33 LED panels and GPIO buttons.",
        version: RoundClockVersion.text,
        subcommands: [Simulate.self, Run.self, Programs.self, Render.self, Probe.self, TestDisplay.self, CheckConfig.self, SettingsCommand.self, ApplyCard.self],
        defaultSubcommand: nil
    )

    /// One line on stderr for a usage or run error (`mainWithOneLineErrors`).
    static func main() async {
        await mainWithOneLineErrors(printError: printError)
    }
}

/// What `roundclock --version` prints. A Debian package build (`scripts/build-deb.sh`) sets
/// `ROUNDCLOCK_PACKAGE_BUILD=1`, for which Package.swift defines `ROUNDCLOCK_PACKAGE_BUILD` in
/// this target, and writes `PackageVersion.generated.swift` (gitignored) with
/// the version of debian/changelog's top entry, e.g. `0.1.0-1`; any other build says it is not
/// a package, so a development binary never claims a package version it was not built as.
enum RoundClockVersion {
    /// The upstream version; debian/changelog's top entry must start with it (build-deb.sh checks).
    static let upstream = "0.1.0"
    #if ROUNDCLOCK_PACKAGE_BUILD
    static let text = packageVersion
    #else
    static let text = "\(upstream) (development build)"
    #endif
}
