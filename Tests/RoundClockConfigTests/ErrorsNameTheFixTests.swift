import Foundation
import Testing
@testable import RoundClockConfig

/// The mistakes a newcomer makes in a config file, each refused with its line and the fix.
@Suite struct ErrorsNameTheFixTests {
    static let boards = BoardFileTests.repository.appendingPathComponent("boards").path

    /// The error `read` throws, as it is printed, or "accepted".
    func refusal(_ read: () throws -> Void) -> String {
        do {
            try read()
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    func refusal(_ text: String, file: String = "c.toml") -> String {
        refusal { _ = try Config.parse(text, file: file) }
    }

    @Test func aTopLevelKeyAfterATableNamesItsLineAndWhereItGoes() {
        #expect(refusal("[resume]\nafter_reboot = true\nprogram = \"tabata\"\n")
                == "c.toml: line 3: resume.program: unknown key; top-level keys go before the first [table]: move line 3 above it")
        #expect(refusal("[idle]\nclock_after_minutes = 0\n\nboard = \"simulator\"\n")
                == "c.toml: line 4: idle.board: unknown key; top-level keys go before the first [table]: move line 4 above it")
        #expect(refusal("[resume]\nafter_reboot = true\nprogramme = \"tabata\"\n").hasPrefix("c.toml: line 3: resume.programme: unknown key; known here: "),
                "only a known top-level key gets the hint")
        #expect(refusal { _ = try BoardFile.parse("name = \"x\"\n[i2c]\nbus = 1\ndescription = \"y\"\n", file: "b.toml") }
                == "b.toml: line 4: i2c.description: unknown key; top-level keys go before the first [table]: move line 4 above it")
    }

    @Test func anUnknownKeyNamesItsLineAndTheNearestKey() {
        #expect(refusal("progam = \"tabata\"\n") == "c.toml: line 1: progam: unknown key; did you mean 'program'?")
        #expect(refusal("board = \"simulator\"\n\n[brightness]\nday = 15\nnigth = 4\n")
                == "c.toml: line 5: brightness.nigth: unknown key; did you mean 'night'?")
        #expect(refusal("[display]\nwhatever = 1\n") == "c.toml: line 2: display.whatever: unknown key; known here: cadence, on_shutdown")
    }

    @Test func aValueErrorNamesItsLine() {
        #expect(refusal("program = \"boxing\"\n[brightness]\n\nnight = 16\n")
                == "c.toml: line 4: brightness.night: 16 is out of range; allowed are 0 to 15")
    }

    @Test(arguments: ShippedBoards.names)
    func aShippedBoardReadAsAConfigIsNamedByItsShortName(_ name: String) throws {
        let path = "\(Self.boards)/\(name).toml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(refusal(text, file: path)
                == "\(path): this is a board file: use board = \"\(name)\" in the config (e.g. /etc/roundclock/config.toml)")
    }

    @Test func aBoardFileOfOnesOwnIsNamedByItsPath() {
        #expect(refusal("name = \"mine\"\n[[panels]]\nrole = \"time\"\nkind = \"seg7x4\"\naddress = 0x70\n", file: "my-board.toml")
                == "my-board.toml: this is a board file: use board = \"my-board.toml\" in the config (e.g. /etc/roundclock/config.toml)")
        #expect(refusal("[buttons]\nstart = \"GPIO17\"\n").hasPrefix("c.toml: line 2: buttons.start: unknown key"),
                "a table both files have is no proof")
        #expect(refusal("board = \"simulator\"\n[[panels]]\naddress = 0x70\n").hasPrefix("c.toml: line 2: panels: unknown key"),
                "a config with a board's key is still a config")
    }

    @Test func theShippedNamesAreTheBoardsOfTheTree() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.boards).filter { $0.hasSuffix(".toml") }
        #expect(ShippedBoards.names == files.map { String($0.dropLast(".toml".count)) }.sorted())
    }

    @Test func aShortNameFindsTheShippedBoard() throws {
        let directories = ["/nonexistent/roundclock/boards", Self.boards]
        let config = try Config.parse("board = \"pi4\"\n", file: "/etc/roundclock/config.toml", recorder: nil, boardDirectories: directories)
        #expect(config.board == .file("\(Self.boards)/pi4.toml"))
        #expect(try config.loadBoard().name == "pi4")
        let notInstalled = try Config.parse("board = \"pi5\"\n", file: "c.toml", recorder: nil, boardDirectories: ["/nonexistent/a", "/nonexistent/b"])
        #expect(notInstalled.board == .file("/nonexistent/b/pi5.toml"), "the package's place, which the error names")
        #expect(try Config.parse("board = \"simulator\"\n", file: "c.toml").board == .simulator)
    }

    @Test func aPathKeepsItsMeaning() throws {
        #expect(try Config.parse("board = \"pi4.toml\"\n", file: "/etc/roundclock/config.toml").board == .file("/etc/roundclock/pi4.toml"))
        #expect(try Config.parse("board = \"./pi4\"\n", file: "/etc/roundclock/config.toml").board == .file("/etc/roundclock/./pi4"))
        #expect(try Config.parse("board = \"mine.board\"\n", file: "/etc/roundclock/config.toml").board == .file("/etc/roundclock/mine.board"))
    }

    @Test func anUnknownShortNameListsTheShippedBoards() {
        #expect(refusal("board = \"pi-4\"\n") == "c.toml: line 1: board: \"pi-4\" is not a shipped board; did you mean \"pi4\"? "
                + "the shipped boards are bigdigits, generic, pi-zero-2w, pi3, pi4, pi5, simulator; "
                + "for a file of your own give its path, e.g. \"./pi-4.toml\"")
        #expect(refusal("board = \"raspberry\"\n") == "c.toml: line 1: board: \"raspberry\" is not a shipped board; "
                + "the shipped boards are bigdigits, generic, pi-zero-2w, pi3, pi4, pi5, simulator; "
                + "for a file of your own give its path, e.g. \"./raspberry.toml\"")
    }
}
