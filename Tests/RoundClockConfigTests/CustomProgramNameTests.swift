import RoundClockCore
import Testing
@testable import RoundClockConfig

/// `[programs]` names: only preset names are reserved (docs/configuration.md).
@Suite struct CustomProgramNameTests {
    @Test func simulatorIsAUsableProgramName() throws {
        let config = try Config.parse("""
            board = "simulator"
            program = "simulator"
            [programs]
            simulator = "3 x 1:00/0:30"
            """, file: "c.toml")
        #expect(config.board == .simulator)
        #expect(config.program.name == "simulator" && config.program.rounds == 3)
        #expect(config.catalog.last?.name == "simulator")
        #expect(config.resolveProgram("simulator")?.rounds == 3)
    }

    @Test func reservedNamesAreExactlyThePresets() {
        #expect(Config.reservedNames == ["boxing", "mma", "muaythai", "tabata", "emom", "amrap", "fortime", "countdown", "stopwatch", "clock"])
        for name in Config.reservedNames {
            #expect(throws: ConfigError.self, "\(name)") { try Config.parse("[programs]\n\(name) = \"3 x 1:00\"\n", file: "c.toml") }
        }
    }
}
