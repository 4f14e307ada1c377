import RoundClockConfig
import Testing

/// The key lists the readers' hints rely on (a top-level key written below a table, a board
/// file given as the configuration) are the keys the parsers read.
@Suite struct FileShapeKeysTests {
    /// The top-level keys of the recorded paths: `a` of `a.b`, `panels` of `panels[].role`.
    static func topLevel(_ keys: Set<String>) -> Set<String> {
        Set(keys.map { String($0.prefix { $0 != "." && $0 != "[" }) })
    }

    @Test func theTopLevelValueKeysAreTheParsersOwn() throws {
        let config = try ParserKeys.configKeys().filter { !$0.contains(".") }
        #expect(config == Set(Config.topLevelValueKeys))
        let board = try ParserKeys.boardKeys().filter { !$0.contains(".") && !$0.contains("[") }
        #expect(board.subtracting(["panels"]) == Set(BoardFile.topLevelValueKeys), "[[panels]] is a header, never a value")
    }

    @Test func aBoardFilesTopLevelKeysAreTheBoardParsersOwn() throws {
        let boardKeys = try ParserKeys.boardKeys()
        #expect(Self.topLevel(boardKeys) == BoardFile.topLevelKeys)
    }
}
