import ArgumentParser

@main
struct RoundClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundclock",
        abstract: "A drift-free gym round clock for HT16K33 LED panels and GPIO buttons.",
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
            let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: true)
            let message = lines.first ?? ""
            let text = message.hasPrefix("Error: ") ? "error: " + message.dropFirst("Error: ".count) : message[...]
            // ArgumentParser's last line "  See 'roundclock simulate --help' for more information."
            let help = lines.last { $0.contains("See '") }?.split(separator: "'").dropFirst().first
            printError(text + (help.map { " (see '\($0)')" } ?? ""))
            exit(withError: ExitCode(ExitStatus.code(for: exitCode(for: error).rawValue)))
        }
    }
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
