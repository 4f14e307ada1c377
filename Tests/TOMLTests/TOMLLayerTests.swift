import Testing
import TOML

/// Tables laid over one another and written back: what the setup page's settings file relies on.
@Suite struct TOMLLayerTests {
    static func table(_ text: String) throws -> TOMLTable { try TOML.parse(text) }

    @Test func theTopWinsKeyByKeyAndTablesMerge() throws {
        let below = try Self.table("program = \"tabata\"\nboard = \"pi4\"\n[brightness]\nday = 12\nnight = 2\n[idle]\nclock_after_minutes = 5\n")
        let top = try Self.table("program = \"emom\"\n[brightness]\nday = 3\n[display]\ncadence = \"live\"\n")
        let merged = below.overlaid(by: top)
        let expected = try Self.table("""
            program = "emom"
            board = "pi4"
            [brightness]
            day = 3
            night = 2
            [idle]
            clock_after_minutes = 5
            [display]
            cadence = "live"
            """)
        #expect(merged == expected)
        #expect(merged.keys == ["program", "board", "brightness", "idle", "display"])
        #expect(below.overlaid(by: TOMLTable()) == below && TOMLTable().overlaid(by: top) == top)
    }

    @Test func aValueReplacesATableAndATableAValue() throws {
        let below = try Self.table("a = 1\n[b]\nc = 2\n")
        let top = try Self.table("b = 3\n[a]\nd = 4\n")
        let expected = try Self.table("b = 3\n[a]\nd = 4\n")
        #expect(below.overlaid(by: top) == expected)
    }

    @Test func settingAndRemovingByPath() throws {
        var table = TOMLTable()
        table = table.setting(["brightness", "day"], to: .integer(3))
        table = table.setting(["program"], to: .string("emom"))
        #expect(table[path: ["brightness", "day"]] == .integer(3))
        #expect(table.valuePaths == [["program"], ["brightness", "day"]])
        table = table.setting(["program"], to: .string("tabata"))
        #expect(table[path: ["program"]] == .string("tabata"))
        table = table.setting(["brightness", "day"], to: nil)
        #expect(table.keys == ["program"], "a table left empty goes")
        #expect(table.setting(["nothing", "here"], to: nil) == table)
    }

    /// Whatever is set, the document written reads back as the same table.
    @Test(arguments: [
        "program = \"emom\"\n",
        "start_at = [\"06:00\", \"18:30\"]\n[brightness]\nday = 3\nnight_from = \"22:00\"\n",
        "\"odd key\" = \"with \\\"quotes\\\" and \\n newline\"\n[\"a.b\"]\nc = true\n[x.y]\nz = -5\n",
        "[a]\n[a.b]\nc = 1\n",
        "",
    ])
    func theDocumentReadsBackAsTheTable(_ text: String) throws {
        let table = try Self.table(text)
        #expect(try Self.table(table.documentText) == table, "\(table.documentText)")
    }
}
