import Testing
import RoundClockCore
@testable import RoundClockConfig

/// `[lights]` and `[horn]` in board files, and the rule that each GPIO line serves one role.
@Suite struct BoardOutputLineTests {
    static let minimal = BoardFileTests.minimal

    @Test func lightsAndHornAreRead() throws {
        let board = try BoardFile.parse(Self.minimal + """

            [buzzer]
            line = "GPIO18"

            [lights]
            work = "GPIO23"
            rest = "GPIO24"
            warn = "gpiochip0:25"
            active_low = true

            [horn]
            line = "GPIO26"
            active_low = true
            """, file: "test.toml")
        #expect(board.lights == [.work: "GPIO23", .rest: "GPIO24", .warn: "gpiochip0:25"])
        #expect(board.lightsActiveLow && board.horn == "GPIO26" && board.hornActiveLow)
        #expect(BoardFile.gpioLines(board).map(\.key) == ["buzzer.line", "lights.work", "lights.rest", "lights.warn", "horn.line"])
    }

    @Test func withoutTheTablesThereIsNoLightAndNoHorn() throws {
        let board = try BoardFile.parse(Self.minimal, file: "test.toml")
        #expect(board.lights.isEmpty && !board.lightsActiveLow && board.horn == nil && !board.hornActiveLow)
    }

    @Test func aLightWithSomeLampsOnly() throws {
        let board = try BoardFile.parse(Self.minimal + "\n[lights]\nwarn = \"GPIO25\"", file: "test.toml")
        #expect(board.lights == [.warn: "GPIO25"] && !board.lightsActiveLow)
    }

    @Test(arguments: [
        ("[lights]\nwork = \"GPIO23\"\nred = \"GPIO24\"", "lights.red", "unknown key; known here: active_low, rest, warn, work"),
        ("[lights]\nwork = \"\"", "lights.work", "empty line name"),
        ("[lights]\nactive_low = true", "lights.work", "[lights] names no line"),
        ("[lights]\nwork = 23", "lights.work", "expected a string"),
        ("[horn]\nline = \"\"", "horn.line", "empty line name"),
        ("[horn]\nactive_low = true", "horn.line", "missing; it is required"),
        ("[horn]\nline = \"GPIO26\"\nlength_ms = 100", "horn.length_ms", "unknown key"),
        ("[buzzer]\nline = \"\"", "buzzer.line", "empty line name"),
        ("[buttons]\nstart = \"GPIO17\"\n[lights]\nwork = \"GPIO17\"", "lights.work", "\"GPIO17\" is already buttons.start"),
        ("[buzzer]\nline = \"GPIO18\"\n[horn]\nline = \"GPIO18\"", "horn.line", "\"GPIO18\" is already buzzer.line"),
        ("[lights]\nwork = \"GPIO23\"\nrest = \"GPIO23\"", "lights.rest", "\"GPIO23\" is already lights.work"),
        ("[buttons]\nstart = \"GPIO17\"\nstop = \"GPIO17\"", "buttons.stop", "\"GPIO17\" is already buttons.start"),
        ("[lights]\nwarn = \"GPIO26\"\n[horn]\nline = \"GPIO26\"", "horn.line", "each GPIO line serves one role"),
    ])
    func badLinesNameTheKeyInOneLine(tail: String, location: String, message: String) {
        do {
            let board = try BoardFile.parse(Self.minimal + "\n" + tail, file: "test.toml")
            Issue.record("accepted \(board)")
        } catch {
            #expect(error.file == "test.toml")
            #expect(error.location == location, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(!error.description.contains("\n"), "one line")
        }
    }

    @Test func theSummaryNamesTheLampsAndTheHornsSignals() throws {
        let board = try BoardFile.parse(Self.minimal + """

            [lights]
            work = "GPIO23"
            rest = "GPIO24"

            [horn]
            line = "GPIO26"
            """, file: "test.toml")
        let config = try Config.parse("[horn]\nfinish_ms = 0\nswitch_ms = 0\n", file: "c.toml")
        let lines = config.summary(board: board).split(separator: "\n").map(String.init)
        #expect(lines.contains("stack light: work GPIO23, rest GPIO24"))
        #expect(lines.contains("horn: GPIO26; sounds for start, warning, end"))
    }
}
