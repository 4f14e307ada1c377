import ArgumentParser
import RoundClockConfig
import RoundClockCore

/// `roundclock programs [SPEC...]`: the presets (or the given specs) with their plan.
struct Programs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the preset programs with their phase plan and total length.",
        discussion: """
            With SPECs, describe those instead: presets with arguments (emom:12, \
            countdown:5:00), custom lines ("10 x 0:45/0:15, prep 0:10, warn 0:05") or, with \
            --config, names from its [programs].
            """)

    @Argument(help: "Program specs to describe instead of the preset list.")
    var specs: [String] = []

    @Option(help: "Also list the [programs] of this configuration file, which SPECs may name (exit 78 if it is bad).")
    var config: String?

    /// Without --config every SPEC is checked here; with it, in `run`, once the file's names are known.
    func validate() throws {
        guard config == nil else { return }
        for spec in specs { _ = try Self.program(spec, among: []) }
    }

    func run() throws {
        var configured: [Program] = []
        if let config {
            do { configured = try Config.load(config).programs } catch {
                printError(error.description)
                throw ExitCode(ConfigError.exitCode)
            }
        }
        let programs = specs.isEmpty ? Presets.cycle + Presets.more + configured
            : try specs.map { spec throws in try Self.program(spec, among: configured, file: config) }
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

    /// The program `spec` names: one of `configured` (the programs of `file`), a preset or a
    /// program line.
    static func program(_ spec: String, among configured: [Program], file: String? = nil) throws -> Program {
        if let own = configured.first(where: { $0.name == spec.trimmed }) { return own }
        let names = configured.map(\.name)
        do { return try ProgramSpec.parse(spec, alsoNamed: names) } catch {
            var error = error
            if let file, !names.isEmpty { error.expected += "; or one of \(file)'s programs: \(names.joined(separator: ", "))" }
            throw ValidationError(error.description)
        }
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
