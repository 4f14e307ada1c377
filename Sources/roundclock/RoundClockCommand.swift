import ArgumentParser

@main
struct RoundClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundclock",
        abstract: "A drift-free gym round clock for HT16K33 LED panels and GPIO buttons.",
        subcommands: [Simulate.self, Run.self, Programs.self, Render.self, Probe.self, TestDisplay.self, CheckConfig.self, Bench.self],
        defaultSubcommand: nil
    )
}
