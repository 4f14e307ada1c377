import ArgumentParser
import RoundClockConfig
import RoundClockCore

/// `roundclock programs [SPEC...]`: the presets (or the given specs) with their plan.
struct Programs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the preset programs with their phase plan and total length.",
        discussion: """
            With SPECs, describe those instead: presets with arguments (emom:12, \
            countdown:5:00) or custom lines ("10 x 0:45/0:15, prep 0:10, warn 0:05").
            """)

    @Argument(help: "Program specs to describe instead of the preset list.")
    var specs: [String] = []

    @Option(help: "Also list the [programs] of this configuration file (exit 78 if it is bad).")
    var config: String?

    func validate() throws {
        for spec in specs {
            do { _ = try ProgramSpec.parse(spec) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        var programs = specs.isEmpty ? Presets.cycle + Presets.more : specs.compactMap { try? ProgramSpec.parse($0) }
        if let config {
            do { programs += try Config.load(config).programs } catch {
                printError(error.description)
                throw ExitCode(ConfigError.exitCode)
            }
        }
        let nameWidth = max(14, programs.map(\.name.count).max() ?? 0)
        print(pad("PROGRAM", nameWidth) + "  " + pad("TOTAL", 10) + "  PLAN")
        for program in programs {
            print(pad(program.name, nameWidth) + "  " + pad(program.totalDescription, 10) + "  " + program.plan)
            // countdown takes a required length, so it has no default to list: a pattern row.
            if specs.isEmpty, program.name.hasPrefix("fortime") {
                print(pad("countdown:M:SS", nameWidth) + "  " + pad("M:SS", 10) + "  1 × M:SS work counting down, no prep (e.g. countdown:5:00)")
            }
        }
        if specs.isEmpty {
            print("""

                Arguments: emom:N (N one-minute rounds, default 10), amrap:M and fortime:M \
                (M minutes, default 20), countdown:M:SS (required), deathby:M (at most M minutes, default 20).
                MODE cycles boxing ... clock, then the config's [programs]; fgb, bjj and deathby are chosen by name.
                Custom: "ROUNDS x WORK[/REST][, prep TIME][, warn TIME]", e.g. "10 x 0:45/0:15, prep 0:10, warn 0:05".
                """)
        }
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
