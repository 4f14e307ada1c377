import Testing
import TOML

/// Each key knows the line that defines it, so that a reader's message can name it; the
/// lines are not part of a table's equality.
@Suite struct KeyLineTests {
    static let document = """
        # a comment
        title = "x"
        text = \"\"\"
        two
        lines\"\"\"
        a.b.c = 1

        [resume]
        after_reboot = true
        program = "tabata"

        [[panels]]
        role = "time"
        inline = { x = 1, y = [
          2 ] }

        [[panels]]
        role = "round"

        [deep.er]
        key = 2\r
        after = 3
        """

    @Test func eachKeyHasTheLineThatDefinesIt() throws {
        let root = try TOML.parse(Self.document)
        #expect(root.line(of: "title") == 2)
        #expect(root.line(of: "text") == 3)
        #expect(root.line(of: "a") == 6)
        #expect(root["a"]?.table?.line(of: "b") == 6)
        #expect(root["a"]?.table?["b"]?.table?.line(of: "c") == 6)
        #expect(root.line(of: "resume") == 8)
        let resume = try #require(root["resume"]?.table)
        #expect(resume.line(of: "after_reboot") == 9)
        #expect(resume.line(of: "program") == 10)
        #expect(root.line(of: "panels") == 12, "the first [[panels]]")
        let panels = (root["panels"]?.array ?? []).compactMap(\.table)
        try #require(panels.count == 2)
        #expect(panels.map { $0.line(of: "role") } == [13, 18])
        #expect(panels[0].line(of: "inline") == 14)
        #expect(panels[0]["inline"]?.table?.line(of: "y") == 14)
        #expect(root.line(of: "deep") == 20, "created by the deeper header")
        #expect(root["deep"]?.table?.line(of: "er") == 20)
        #expect(root["deep"]?.table?["er"]?.table?.line(of: "key") == 21)
        #expect(root["deep"]?.table?["er"]?.table?.line(of: "after") == 22, "CRLF ends a line too")
        #expect(root.line(of: "missing") == nil)
    }

    @Test func linesDoNotChangeEquality() throws {
        let spread = try TOML.parse("\n\na = 1\n\n[t]\n\nb = 2\n")
        let packed = try TOML.parse("a = 1\n[t]\nb = 2\n")
        #expect(spread == packed)
        #expect(spread.hashValue == packed.hashValue)
        #expect(spread.line(of: "a") == 3 && packed.line(of: "a") == 1)
    }
}
