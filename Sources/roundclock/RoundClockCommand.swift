import ArgumentParser
import Dispatch
import RoundClockService
import TOML
#if canImport(Glibc)
import Glibc
#endif

/// The process entry, synchronous so that `run` catches SIGTERM/SIGINT/SIGHUP before
/// anything else happens: an async `main` first parks the main thread in libdispatch's
/// `dispatch_main`, whose sigsuspend(2) with an empty mask takes any pending signal by its
/// default disposition before the first line of Swift code runs. Then the async command
/// runs on the main queue, as an async `main` would.
@main
enum Entry {
    static func main() {
        // A frames pipe (or stdout) whose reader went away is a write error, EPIPE (exit 74
        // for the frames file), not a kill by SIGPIPE in the middle of a round.
        signal(SIGPIPE, SIG_IGN)
        if CommandLine.arguments.dropFirst().first == "run" {
            do { try ShutdownSignals.install() } catch {
                printError("\(error)")
                exit(ExitStatus.software)
            }
        }
        Task { @MainActor in
            await RoundClockCommand.main()
            exit(0)
        }
        dispatchMain()
    }
}

struct RoundClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundclock",
        abstract: "A drift-free gym round clock for HT16K33 LED panels and GPIO buttons.",
        version: RoundClockVersion.text,
        subcommands: [Simulate.self, Run.self, Programs.self, Render.self, Probe.self, TestDisplay.self, CheckConfig.self, Bench.self],
        defaultSubcommand: nil
    )

    /// Like ArgumentParser's `main`, except that a usage or run error is one line on
    /// stderr ("roundclock: error: ..." naming the bad token), not the message followed by
    /// the usage block; `--help` and `help` print in full as usual. Exit statuses follow
    /// `ExitStatus` (README "Exit codes").
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            if error is ExitCode || exitCode(for: error) == .success { exit(withError: error) }
            // The message alone (no usage block), on one line whatever the user typed: a token
            // with a line break or another control character is shown escaped (`\n`), never cut.
            let message = escapedControlCharacters(self.message(for: error))
            let usage = fullMessage(for: error).hasPrefix("Error: ") ? "error: " : ""
            // ArgumentParser's last line "  See 'roundclock simulate --help' for more information."
            let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: true)
            let help = lines.last { $0.contains("See '") }?.split(separator: "'").dropFirst().first
            printError(usage + message + (help.map { " (see '\($0)')" } ?? ""))
            exit(withError: ExitCode(ExitStatus.code(for: exitCode(for: error).rawValue)))
        }
    }
}

/// What `roundclock --version` prints. A Debian package build (`scripts/build-deb.sh`) passes
/// `-DROUNDCLOCK_PACKAGE_BUILD` and writes `PackageVersion.generated.swift` (gitignored) with
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

/// The exit statuses of every subcommand (sysexits.h; README "Exit codes"). Each error
/// path throws `ExitCode` with one of these after printing its one line.
enum ExitStatus {
    /// EX_USAGE: a bad option, argument or option file of a one-shot command.
    static let usage: Int32 = 64
    /// EX_UNAVAILABLE: an I2C bus, chip or GPIO line that is not there.
    static let unavailable: Int32 = 69
    /// EX_SOFTWARE: a service failed while running (systemd restarts `run`), or an error
    /// no row names.
    static let software: Int32 = 70
    /// EX_CANTCREAT: the frames file or the state directory cannot be created or opened.
    static let cannotCreate: Int32 = 73
    /// EX_IOERR: writing the frames file failed.
    static let ioError: Int32 = 74
    /// EX_CONFIG: a bad config or board file for `run` / `check-config` (not restarted).
    static let config: Int32 = 78

    /// ArgumentParser's status for `error`, with its generic failure (1, EXIT_FAILURE)
    /// made EX_SOFTWARE: no subcommand exits 1.
    static func code(for parserStatus: Int32) -> Int32 {
        parserStatus == 1 ? software : parserStatus
    }
}
