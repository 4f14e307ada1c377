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
        #expect(Config.reservedNames == ["boxing", "mma", "muaythai", "tabata", "emom", "amrap", "fortime", "countdown", "stopwatch", "clock",
                                       "fgb", "bjj", "deathby"])
        for name in Config.reservedNames {
            #expect(throws: ConfigError.self, "\(name)") { try Config.parse("[programs]\n\(name) = \"3 x 1:00\"\n", file: "c.toml") }
        }
    }

    @Test func aPresetOutsideTheCycleIsRefusedAsAProgramName() {
        for name in ["fgb", "bjj", "deathby"] {
            do {
                _ = try Config.parse("[programs]\n\(name) = \"8 x 0:20/0:10\"\n", file: "c.toml")
                Issue.record("[programs] \(name) was accepted")
            } catch {
                #expect(error.description == "c.toml: line 2: programs.\(name): \"\(name)\" is a preset name; pick another name (reserved: boxing, mma, muaythai, tabata, emom, amrap, fortime, countdown, stopwatch, clock, fgb, bjj, deathby)")
            }
        }
    }

    @Test func theEditorSavesNoPresetName() {
        for name in ["fgb", "bjj", "deathby"] {
            #expect(throws: ConfigError.self, "\(name)") {
                try SavedPrograms().saving("[programs.\(name)]\nbase = \"tabata\"\n", configured: [])
            }
        }
    }

    @Test func aSavedFileOfAnOlderVersionLoadsWithItsPresetNamesRenamed() throws {
        let text = "[programs.fgb]\nintervals = [ {label = \"WORK\", time = \"0:07\"} ]\n\n"
            + "[programs.\"bjj\"]\nbase = \"tabata\"\n[programs.deathby]\n[[programs.deathby.intervals]]\nlabel = \"WORK\"\ntime = \"0:05\"\n"
            + "[programs.circuit]\nbase = \"tabata\"\n"
        #expect(throws: ConfigError.self) { try SavedPrograms.load(text, file: "p.toml") }
        let (renamedText, renamed) = SavedPrograms.renamingPresetNames(text, taken: ["fgb-saved"])
        #expect(renamed.map { "\($0.from)>\($0.to)" } == ["fgb>fgb-saved-2", "bjj>bjj-saved", "deathby>deathby-saved"])
        let saved = try SavedPrograms.load(renamedText, file: "p.toml")
        #expect(saved.programs.map(\.name) == ["bjj-saved", "circuit", "deathby-saved", "fgb-saved-2"])
        #expect(saved.programs.first { $0.name == "fgb-saved-2" }?.total == .seconds(7))
        #expect(SavedPrograms.renamingPresetNames(renamedText, taken: []).renamed.isEmpty)
    }
}
