import BoardSpec
import Foundation
import SegmentDisplay
import Testing
@testable import RoundClockConfig

@Suite struct BoardFileTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func builtInSimulatorBoardIsTheShippedFile() throws {
        let shipped = try BoardFile.load(Self.repository.appendingPathComponent("boards/simulator.toml").path)
        let builtIn = try BoardFile.simulator()
        #expect(shipped == builtIn)
        #expect(builtIn.panels == [
            PanelSpec(role: .time, kind: .seg7x4, address: 0x70),
            PanelSpec(role: .round, kind: .seg7x4, address: 0x71),
            PanelSpec(role: .phase, kind: .seg14x4, address: 0x72),
        ])
        #expect(builtIn.buttons == [.start: "GPIO17", .stop: "GPIO27", .mode: "GPIO22"])
        #expect(builtIn.hasModeButton && builtIn.buttonsActiveLow && builtIn.buttonBias == "pull-up")
    }

    @Test func everyShippedBoardDecodes() throws {
        let dir = Self.repository.appendingPathComponent("boards")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".toml") }
        #expect(!files.isEmpty)
        for file in files {
            let board = try BoardFile.load(dir.appendingPathComponent(file).path)
            #expect(board.panels.contains { $0.role == .time }, "\(file)")
        }
    }

    static let minimal = """
        name = "x"
        [[panels]]
        role = "time"
        kind = "seg7x4"
        address = 0x70
        """

    @Test(arguments: [
        (minimal + "\nbogus = 1", "panels[1].bogus", "unknown key; known here: address, kind, role"),
        ("bogus = 1\n" + minimal, "bogus", "unknown key"),
        (minimal.replacingOccurrences(of: "0x70", with: "0x69"), "panels[1].address", "105 (0x69) is out of range; allowed are 0x70 to 0x77, written in hex"),
        (minimal.replacingOccurrences(of: "seg7x4", with: "seg9x4"), "panels[1].kind", "\"seg9x4\" is not allowed"),
        (minimal.replacingOccurrences(of: "\"time\"", with: "\"phase\""), "panels[1].kind", "cannot show \"WORK\""),
        (minimal.replacingOccurrences(of: "\"time\"", with: "\"round\""), "panels", "needs a panel with role = \"time\""),
        (minimal + "\n[[panels]]\nrole = \"time\"\nkind = \"seg7x4\"\naddress = 0x71", "panels[2].role", "already defined"),
        (minimal + "\n[[panels]]\nrole = \"round\"\nkind = \"seg7x4\"\naddress = 0x70", "panels[2].address", "used by another panel"),
        (minimal.replacingOccurrences(of: "name = \"x\"", with: ""), "name", "missing"),
        (minimal + "\n[buttons]\nstart = 17", "buttons.start", "expected a string"),
        (minimal + "\n[buttons]\nbias = \"up\"", "buttons.bias", "\"up\" is not allowed"),
        (minimal + "\n[i2c]\nbus = -1", "i2c.bus", "out of range"),
        (minimal + "\naddress = [1, 2", "line 6, column", "not valid TOML"),
    ])
    func badBoardsNameTheKeyAndTheRule(text: String, location: String, message: String) {
        do {
            let board = try BoardFile.parse(text, file: "test.toml")
            Issue.record("accepted \(board)")
        } catch {
            #expect(error.file == "test.toml")
            #expect(error.location.hasPrefix(location), "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    /// Malformed headers and a NUL byte: errors at their line and column, never an abort or
    /// a silent end of parsing.
    @Test(arguments: [
        ("[\n", "line 2, column 2"), ("[#]", "line 2, column 2"), ("[=]", "line 2, column 2"), ("[.]", "line 2, column 2"),
        ("[[", "line 2, column 3"), ("[é]", "line 2, column 2"), ("[[panels]]\u{0}", "line 2, column 11"),
    ])
    func malformedTOMLInABoardFile(tail: String, location: String) {
        do {
            let board = try BoardFile.parse("name = \"x\"\n" + tail, file: "test.toml")
            Issue.record("accepted \(board)")
        } catch {
            #expect(error.location == location && error.message.hasPrefix("not valid TOML: "), "\(error)")
        }
    }

    @Test func missingFileIsAClearError() {
        #expect(throws: ConfigError.self) { try BoardFile.load("/nonexistent/board.toml") }
        do { _ = try BoardFile.load("/nonexistent/board.toml") } catch {
            #expect(error.description == "/nonexistent/board.toml: cannot open: No such file or directory (errno 2)")
        }
    }
}
