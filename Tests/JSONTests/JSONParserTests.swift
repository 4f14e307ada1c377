import JSON
import Testing

/// RFC 8259 by example: what is read, and the one-line error for what is not.
@Suite struct JSONParserTests {
    let parser = JSONParser(maxBytes: 4096, maxDepth: 8)

    @Test func readsEveryKindOfValue() throws {
        let value = try parser.parse(#" {"a": [1, -2.5e+3, 0, true, false, null], "b": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "c": {}} "#)
        #expect(value == .object([
            JSONMember("a", .array([.number("1"), .number("-2.5e+3"), .number("0"), .bool(true), .bool(false), .null])),
            JSONMember("b", .string("x\"\\/\u{8}\u{c}\n\r\té😀")),
            JSONMember("c", .object([])),
        ]))
        #expect(value["a"] == .array([.number("1"), .number("-2.5e+3"), .number("0"), .bool(true), .bool(false), .null]))
        #expect(try parser.parse("12").int == 12)
        #expect(try parser.parse("1.0").int == nil)
        #expect(try parser.parse("\"é\"").string == "é")
    }

    @Test func namesWhatIsWrongAndWhere() {
        let cases: [(String, String)] = [
            ("", "at byte 0: expected a value, found end of line"),
            ("{\"a\": 1,}", "at byte 8: expected a key string, found '}'"),
            ("[1,]", "at byte 3: expected a value, found ']'"),
            ("{\"a\" 1}", "at byte 5: expected ':' after key \"a\", found '1'"),
            ("{\"a\": 1 \"b\": 2}", "at byte 8: expected ',' or '}' in an object, found '\"'"),
            ("01", "at byte 0: leading zero in a number"),
            ("-", "at byte 1: expected a digit, found end of line"),
            ("1.", "at byte 2: expected a digit after '.', found end of line"),
            ("1e", "at byte 2: expected a digit in the exponent, found end of line"),
            ("+1", "at byte 0: expected a value, found '+'"),
            ("NaN", "at byte 0: expected a value, found 'N'"),
            ("tru", "at byte 3: expected true, found end of line"),
            ("\"abc", "at byte 4: unterminated string"),
            ("\"a\tb\"", "at byte 2: control character U+0009 in a string (escape it)"),
            (#""\x""#, "at byte 2: invalid escape \\'x'"),
            (#""\u12G4""#, "at byte 5: expected a hex digit in \\u escape, found 'G'"),
            (#""\ud800""#, "at byte 1: high surrogate \\ud800 without a low one"),
            (#""\ud800\u0041""#, "at byte 1: high surrogate \\ud800 without a low one"),
            (#""\udc00""#, "at byte 1: low surrogate \\udc00 without a high one"),
            ("{\"a\": 1, \"a\": 2}", "at byte 9: duplicate key \"a\""),
            ("1 2", "at byte 2: '2' after the value"),
            ("[[[[[[[[[1]]]]]]]]]", "at byte 8: nested deeper than 8"),
            ("// c", "at byte 0: expected a value, found '/'"),
        ]
        for (text, message) in cases {
            #expect(throws: JSONError.self) { try parser.parse(text) }
            do {
                _ = try parser.parse(text)
            } catch {
                #expect(error.description == message, "\(text)")
            }
        }
    }

    @Test func refusesWhatIsNotUTF8() {
        let cases: [([UInt8], String)] = [
            ([0x22, 0xFF, 0x22], "at byte 1: not UTF-8 (byte 0xff)"),
            ([0x22, 0xC0, 0xAF, 0x22], "at byte 1: not UTF-8 (byte 0xc0)"),  // overlong '/'
            ([0x22, 0xED, 0xA0, 0x80, 0x22], "at byte 1: not UTF-8 (byte 0xed)"),  // a surrogate
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "at byte 1: not UTF-8 (byte 0xf4)"),  // above U+10FFFF
            ([0x22, 0xE2, 0x82], "at byte 1: not UTF-8 (byte 0xe2)"),  // cut short
        ]
        for (bytes, message) in cases {
            do {
                _ = try parser.parse(bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.description == message)
            }
        }
    }

    @Test func refusesMoreThanTheSizeLimit() throws {
        let long = "\"" + String(repeating: "a", count: 4095) + "\""
        #expect(throws: JSONError(at: 4096, "longer than 4096 bytes")) { try parser.parse(long) }
        let fits = "\"" + String(repeating: "a", count: 4094) + "\""
        #expect(try parser.parse(fits) == .string(String(repeating: "a", count: 4094)))
    }

    @Test func writesOneLineInTheFramesFileStyle() {
        let value = JSONValue.object([
            JSONMember("t", .number("12.000")), JSONMember("text", .string(" 2:58\n\"\\\u{1}")),
            JSONMember("list", .array([.int(1), .bool(false), .null])),
        ])
        #expect(value.encoded == #"{"t": 12.000, "text": " 2:58\n\"\\\u0001", "list": [1, false, null]}"#)
    }
}
