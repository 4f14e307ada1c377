import ArgumentParser
import CommandLineSupport
import TOML

/// `roundclock bench ...`: the benchmarks are an executable of their own (`roundclock-bench`,
/// docs/benchmarks.md; `roundclock` does not link them), so this prints one line naming the
/// command to run instead, exit 64 (EX_USAGE). Not listed in `roundclock --help`.
struct BenchMoved: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Moved: the benchmarks are the roundclock-bench command.",
        shouldDisplay: false)

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws {
        let command = (["roundclock-bench"] + arguments).joined(separator: " ")
        printError("the benchmarks are a command of their own now: run '\(escapedControlCharacters(command))' (docs/benchmarks.md)")
        throw ExitCode(ExitStatus.usage)
    }
}
