import ArgumentParser
import CommandLineSupport
import TOML

/// `roundclock bench ...`, as written before the benchmarks became their own executable
/// (`roundclock-bench`, BENCHMARKS.md; `roundclock` no longer links them): one line naming
/// the command to run instead, exit 64 (EX_USAGE). Not listed in `roundclock --help`.
struct BenchMoved: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Moved: the benchmarks are the roundclock-bench command.",
        shouldDisplay: false)

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws {
        let command = (["roundclock-bench"] + arguments).joined(separator: " ")
        printError("the benchmarks are a command of their own now: run '\(escapedControlCharacters(command))' (BENCHMARKS.md)")
        throw ExitCode(ExitStatus.usage)
    }
}
