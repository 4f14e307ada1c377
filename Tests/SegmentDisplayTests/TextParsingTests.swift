import SegmentDisplay
import Testing

@Suite("Text -> Frame")
struct TextParsingTests {
    @Test("contract examples on seg7x4", arguments: [
        (" 2:58", "00005b0002006d007f00000000000000"),
        ("10:00", "06003f0002003f003f00000000000000"),
        (" 258", "00005b0000006d007f00000000000000"),
        (" 3.12", "0000cf00000006005b00000000000000"),
        ("    ", "00000000000000000000000000000000"),
    ])
    func examples(_ text: String, _ hex: String) throws {
        let ram = try Frame(text, kind: .seg7x4).ram()
        #expect(ramHex(ram) == hex)
    }

    @Test func shortTextIsRightAligned() throws {
        let frame = try Frame("7", kind: .seg7x4)
        #expect(frame.text == "   7")
        #expect(try Frame("2:58", kind: .seg7x4).text == " 2:58")
    }

    @Test func fourteenSegmentWord() throws {
        let frame = try Frame("WORK", kind: .seg14x4)
        #expect(frame.text == "WORK")
        #expect(frame.cells.map(\.character) == ["W", "O", "R", "K"])
    }

    @Test func tooLongNamesThePanel() {
        #expect(throws: SegmentDisplayError.textTooLong("12345", needed: 5, .seg7x4)) {
            try Frame("12345", kind: .seg7x4)
        }
        #expect(throws: SegmentDisplayError.textTooLong("123", needed: 3, .matrix8x8)) {
            try Frame("123", kind: .matrix8x8)
        }
        let error = SegmentDisplayError.textTooLong("12345", needed: 5, .seg14x4)
        #expect(error.description == "text \"12345\" needs 5 positions but seg14x4 has 4")
    }

    @Test("unshowable 7-segment letters are errors naming the character",
          arguments: ["K", "k", "M", "m", "W", "w", "X", "x", "Z", "z", "!", "?", ";", "@"])
    func unshowable(_ letter: String) {
        let character = letter.first ?? " "
        #expect(throws: SegmentDisplayError.unsupportedCharacter(character, .seg7x4)) {
            try Frame(" \(letter)", kind: .seg7x4)
        }
        let message = SegmentDisplayError.unsupportedCharacter(character, .bigseg7x4).description
        #expect(message.contains("\"\(letter)\""))
    }

    @Test func matrixRejectsLetters() {
        #expect(throws: SegmentDisplayError.unsupportedCharacter("A", .matrix16x8)) {
            try Frame("A1", kind: .matrix16x8)
        }
        #expect(throws: SegmentDisplayError.unsupportedCharacter(":", .matrix8x8)) {
            try Frame("1:2", kind: .matrix8x8)
        }
    }

    @Test("colon only between the 2nd and 3rd position",
          arguments: ["1:234", "123:4", "1234:", ":1", "12:3", "1:2:34"])
    func misplacedColon(_ text: String) {
        #expect(throws: SegmentDisplayError.misplacedColon(text, .seg7x4)) {
            try Frame(text, kind: .seg7x4)
        }
    }

    @Test func colonOnFourteenSegmentsIsAGlyph() throws {
        let frame = try Frame("1:23", kind: .seg14x4)
        #expect(frame.colon == false)
        #expect(frame.cells.count == 4)
        // ':' shares 0x1200 with 'I' and '|'; decoding returns 'I'.
        #expect(try Frame(ram: frame.ram(), kind: .seg14x4).text == "1I23")
    }

    @Test func noDecimalPointsOnBigSegOrMatrix() {
        #expect(throws: SegmentDisplayError.noDecimalPoints("1.2", .bigseg7x4)) {
            try Frame("1.2", kind: .bigseg7x4)
        }
        #expect(throws: SegmentDisplayError.noDecimalPoints("1.2", .matrix16x8)) {
            try Frame("1.2", kind: .matrix16x8)
        }
    }

    @Test func pointRules() throws {
        // Adafruit _push: a '.' without a previous unlit point takes a new position.
        #expect(try Frame(".5", kind: .seg7x4).text == "   .5")
        #expect(try Frame("1..", kind: .seg7x4).text == "  1. .")
        #expect(try Frame("12:.34", kind: .seg7x4).text == "12.:34")
        #expect(try Frame("?.", kind: .seg14x4).text == "  ? .")
        #expect(try Frame("!", kind: .seg14x4).text == "   1.")
    }

    @Test func indicatorsOnlyOnBigSeg() throws {
        var big = try Frame("12:34", kind: .bigseg7x4)
        try big.setIndicators([.upperLeft, .ampm])
        #expect(big.ram()[4] == 0x02 | 0x04 | 0x10)
        #expect(try Frame(ram: big.ram(), kind: .bigseg7x4) == big)
        var small = Frame(kind: .seg7x4)
        #expect(throws: SegmentDisplayError.noIndicators(.seg7x4)) { try small.setIndicators(.ampm) }
        var alpha = Frame(kind: .seg14x4)
        #expect(throws: SegmentDisplayError.noColon(.seg14x4)) { try alpha.setColon(true) }
    }

    @Test func kindNamesParse() {
        for kind in LayoutKind.allCases { #expect(LayoutKind(kind.description) == kind) }
        #expect(LayoutKind("seg7") == nil)
        #expect(LayoutKind.allCases.map(\.positions) == [4, 4, 4, 2, 4])
    }
}
