/// The exit statuses of every subcommand of `roundclock` and `roundclock-bench` (sysexits.h;
/// docs/command-line.md). Each error path throws `ExitCode` with one of these after printing
/// its one line.
public enum ExitStatus {
    /// EX_USAGE: a bad option, argument or option file of a one-shot command.
    public static let usage: Int32 = 64
    /// EX_UNAVAILABLE: an I2C bus, chip or GPIO line that is not there.
    public static let unavailable: Int32 = 69
    /// EX_SOFTWARE: a service failed while running (systemd restarts `run`), or an error
    /// no row names.
    public static let software: Int32 = 70
    /// EX_CANTCREAT: the frames file or the state directory cannot be created or opened.
    public static let cannotCreate: Int32 = 73
    /// EX_IOERR: writing the frames file failed.
    public static let ioError: Int32 = 74
    /// EX_CONFIG: a bad config or board file for `run` / `check-config` (not restarted).
    public static let config: Int32 = 78

    /// ArgumentParser's status for `error`, with its generic failure (1, EXIT_FAILURE)
    /// made EX_SOFTWARE: no subcommand exits 1.
    public static func code(for parserStatus: Int32) -> Int32 {
        parserStatus == 1 ? software : parserStatus
    }
}
