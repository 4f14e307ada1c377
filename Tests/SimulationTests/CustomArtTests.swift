import SegmentDisplay
import Simulation
import Testing

/// `simulate` and `render` draw any layout: custom digits are read through their wiring.
@Suite struct CustomArtTests {
    /// Six digits on COM5...COM0 (right to left: the wiring reversed), colons after digits 2
    /// and 4 on COM6 (one LED each).
    static let reversed = LayoutKind.custom(
        name: "rev6", font: .sevenSegment,
        digits: (0..<6).map { DigitWiring.common(5 - $0, segments: 7, point: true) },
        colons: [ColonWiring(after: 2, bits: [RAMBit(com: 6, row: 0)]), ColonWiring(after: 4, bits: [RAMBit(com: 6, row: 1)])])

    @Test func sixDigitsWithTwoColonsAndASign() throws {
        let ram = try Frame("-1:05", kind: Self.reversed).ram()
        #expect(ramHex(ram) == "6d003f00060040000000000002000000", "digit 6 on COM0, the sign on COM3")
        let lines = renderArt(kind: Self.reversed, ram: ram).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Digits 1 and 2 dark, the first colon dark, then "-", "1", the second colon, "0", "5".
        #expect(lines == [
            "[rev6] brightness 15/15, blink off",
            "                                 ---    ---",
            "                           |  o |   |  |",
            "                 ---                    ---",
            "                           |  o |   |      |",
            "                                 ---    ---",
        ])
    }

    @Test func fourteenSegmentCustomDigits() throws {
        let layout = LayoutKind.custom(name: "alpha6", font: .fourteenSegment,
                                       digits: (0..<6).map { DigitWiring.common($0, segments: 14, point: false) }, colons: [])
        let art = renderArt(kind: layout, ram: try Frame("ROUND+", kind: layout).ram())
        #expect(art.split(separator: "\n").count == 6)
        #expect(try Frame(ram: try Frame("ROUND+", kind: layout).ram(), kind: layout).text == "ROUND+", "+ is native on 14 segments")
    }

    @Test func plusIsASignOnSevenSegments() throws {
        #expect(try Frame("+1:05", kind: .seg7x4).text == "+1:05")
        #expect(try Frame("+12", kind: .bigseg7x4).ram()[2] == 0x70, "E F G")
        for text in ["+", "1+", "++1", "+-1", "+.1", "+:05"] {
            #expect(throws: SegmentDisplayError.self, "\(text)") { try Frame(text, kind: .seg7x4) }
        }
    }
}
