import TestSupport
import Testing
import TOML

@Suite struct TOMLReaderTests {
    /// Malformed headers that abort a parser built on toml++, and a NUL byte that can silently
    /// end parsing: each is an error with its place.
    @Test(arguments: [
        ("[\n", 1, 2, "expected a key (letters, digits, '-' and '_', or a quoted key), found a newline"),
        ("[#]\n", 1, 2, "found '#'"),
        ("[=]\n", 1, 2, "found '='"),
        ("[.]\n", 1, 2, "found '.'"),
        ("[[", 1, 3, "found the end of the file"),
        ("[[\n", 1, 3, "found a newline"),
        ("[é]\n", 1, 2, "found 'é'"),
        ("[", 1, 2, "found the end of the file"),
        ("a = 1\n[b\nc = 2\n", 2, 3, "expected ']' to close the table header [b]"),
        ("[[a]\n", 1, 4, "expected ']]' to close the array-of-tables header [[a]], found ']'"),
        ("board = \"simulator\"\u{0}foo = 1\n", 1, 20, "a NUL byte (U+0000)"),
        ("board = \"simulator\"\n\u{0}foo = 1\n", 2, 1, "a NUL byte (U+0000)"),
        ("a = \"x\u{0}y\"\n", 1, 7, "a NUL byte (U+0000) is not allowed in a string"),
        ("# é \u{7F}\n", 1, 5, "U+007F is not allowed in a comment"),
        ("a = 1\r\nb = 2\rc = 3\n", 2, 6, "a carriage return"),
        ("\u{FEFF}a = 1\n", 1, 1, "U+FEFF"),
    ])
    func malformedDocumentsNameLineAndColumn(text: String, line: Int, column: Int, message: String) {
        do {
            let table = try TOML.parse(text)
            Issue.record("accepted: \(table)")
        } catch {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(!error.description.unicodeScalars.contains(where: isControl), "one line: \(error.description.debugDescription)")
        }
    }

    @Test(arguments: [
        ([0x61, 0x20, 0x3D, 0x20, 0x22, 0xFF, 0x22], 6, "FF"),
        ([0x23, 0xC3, 0xA9, 0xED, 0xA0, 0x80], 3, "ED"),
        ([0x0A, 0xC0, 0xAF], 1, "C0"),
        ([0x61, 0xC3], 2, "C3"),
    ] as [([UInt8], Int, String)])
    func invalidUTF8IsRejectedWhereItStands(bytes: [UInt8], column: Int, byte: String) {
        let line = bytes.first == 0x0A ? 2 : 1
        #expect(throws: TOMLError(line: line, column: column, message: "not UTF-8 text: byte 0x\(byte) does not start a valid UTF-8 sequence")) {
            try TOML.parse(bytes: bytes)
        }
    }

    /// Nesting beyond `TOML.maximumDepth` is an error, never a stack overflow.
    @Test(arguments: [
        "a = " + String(repeating: "[", count: 100_000),
        "a = " + String(repeating: "{b = ", count: 100_000),
        String(repeating: "a.", count: 100_000) + "b = 1",
        "[" + String(repeating: "a.", count: 100_000) + "b]",
        "[" + String(repeating: "a.", count: 100) + "b]\n" + String(repeating: "c.", count: 100) + "d = 1",
        "[" + String(repeating: "a.", count: 100) + "b]\n" + "c = " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ])
    func deepNestingIsAnError(text: String) {
        #expect(throws: TOMLError.self) { try TOML.parse(text) }
        do { _ = try TOML.parse(text) } catch { #expect(error.message.contains("deeper than 128 levels"), "\(error)") }
    }

    @Test func nestingUpToTheLimitIsRead() throws {
        let depth = TOML.maximumDepth - 1
        let table = try TOML.parse("a = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        var value = try #require(table["a"])
        for _ in 1..<depth { value = try #require(value.array?.first) }
        #expect(value == .array([]))
    }

    @Test func everyValueType() throws {
        let table = try TOML.parse(#"""
            str = "tab\t\"q\" \u00E9 \U0001F600"
            lit = 'C:\path'
            ml = """
            one \
               two"""
            mll = '''
            raw \n'''
            ints = [+99, -17, 0, 1_000, 0xDEAD_beef, 0o755, 0b1101, -9223372036854775808]
            floats = [1.5, -0.01, 5e+22, 6.626e-34, 224_617.445_991]
            special = [inf, -inf, nan]
            bools = [true, false]
            odt = 1979-05-27T00:32:00.999999-07:00
            odt2 = 1979-05-27 07:32:00Z
            ldt = 1979-05-27T07:32:00
            ld = 1979-05-27
            lt = 00:32:00.123456789
            "quoted key".'x'.y = 1
            inline = { a = 1, b.c = [2] }
            [[fruit]]
            name = "apple"
            [fruit.physical]
            color = "red"
            [[fruit]]
            name = "banana"
            """#)
        #expect(table["str"] == .string("tab\t\"q\" é 😀"))
        #expect(table["lit"] == .string(#"C:\path"#))
        #expect(table["ml"] == .string("one two"))
        #expect(table["mll"] == .string(#"raw \n"#))
        #expect(table["ints"] == .array([99, -17, 0, 1000, 0xDEADBEEF, 0o755, 0b1101, Int64.min].map(TOMLValue.integer)))
        #expect(table["floats"] == .array([1.5, -0.01, 5e22, 6.626e-34, 224617.445991].map(TOMLValue.float)))
        guard case .array(let special) = table["special"], special.count == 3, case .float(let nan) = special[2] else { Issue.record("special"); return }
        #expect(special[0] == .float(.infinity) && special[1] == .float(-.infinity) && nan.isNaN)
        #expect(table["bools"] == .array([.boolean(true), .boolean(false)]))
        let date = TOMLDate(year: 1979, month: 5, day: 27)
        #expect(table["odt"] == .offsetDateTime(date, TOMLTime(hour: 0, minute: 32, second: 0, nanosecond: 999_999_000), offsetMinutes: -420))
        #expect(table["odt2"] == .offsetDateTime(date, TOMLTime(hour: 7, minute: 32, second: 0, nanosecond: 0), offsetMinutes: 0))
        #expect(table["ldt"] == .localDateTime(date, TOMLTime(hour: 7, minute: 32, second: 0, nanosecond: 0)))
        #expect(table["ld"] == .localDate(date))
        #expect(table["lt"] == .localTime(TOMLTime(hour: 0, minute: 32, second: 0, nanosecond: 123_456_789)))
        #expect(table["quoted key"]?.table?["x"]?.table?["y"] == .integer(1))
        #expect(table["inline"]?.table?["b"]?.table?["c"] == .array([.integer(2)]))
        let fruit = try #require(table["fruit"]?.array)
        #expect(fruit.count == 2 && fruit[0].table?["physical"]?.table?["color"] == .string("red"))
        #expect(fruit[1].table?.keys == ["name"])
        #expect(table.keys.first == "str", "document order")
    }

    /// The spec's rules on defining tables and keys once.
    @Test(arguments: [
        ("a = 1\na = 2", 2, "a is already defined; each key is defined once"),
        ("[a]\n[a]", 2, "table [a] is already defined; each table is defined once"),
        ("[a]\nb.c = 1\n[a.b]", 3, "already defined by dotted keys"),
        ("[a.b]\n[a]\nb.c = 1", 3, "defined by its header"),
        ("a = {}\n[a]", 2, "inline table"),
        ("a = {b = 1}\na.c = 2", 2, "inline table"),
        ("a = []\n[[a]]", 2, "array value"),
        ("[[a]]\n[a]", 2, "is an array of tables"),
        ("[a]\n[[a]]", 2, "is a table"),
        ("a = 1\n[a.b]", 2, "a already holds a value"),
        ("a = {b = 1, b = 2}", 1, "b is already defined"),
    ])
    func redefinitionIsAnError(text: String, line: Int, message: String) {
        do {
            _ = try TOML.parse(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.line == line && error.message.contains(message), "\(error)")
        }
    }

    @Test(arguments: ["[a.b.c]\n[a]\nb.d = 1", "a.b = 1\n[a.c]", "[a]\nb.c = 1\n[a.b.d]", "[[a]]\n[a.b]\n[[a]]\n[a.b]", "[a.b]\n[a]", "\"é\" = 1\n\"e\\u0301\" = 2"])
    func allowedExtensions(text: String) throws {
        _ = try TOML.parse(text)
    }

    /// Random byte soup from TOML's own characters: the reader returns or throws, never traps.
    @Test func neverTrapsOnRandomInput() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("TOMLReaderTests.neverTrapsOnRandomInput seed \(seed)")
        var rng = SplitMix64(seed: seed)
        let alphabet: [[UInt8]] = ["[", "]", "{", "}", "\"", "'", "\"\"\"", "'''", "=", ".", ",", "#", "\\", "\\u", "\n", "\r", " ", "a", "1", "0x", "-", "_", "e", ":", "1979-05-27", "T", "Z", "+", "inf", "true", "\u{0}", "é", "\u{1B}"].map { Array($0.utf8) } + [[0xFF], [0xC3]]
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(rng.next() % 24) { bytes += alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            do { _ = try TOML.parse(bytes: bytes) } catch {
                #expect(!error.description.unicodeScalars.contains(where: isControl) && error.line >= 1 && error.column >= 1)
            }
        }
    }
}
