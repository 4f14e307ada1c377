import SegmentDisplay
import Testing

/// Every glyph of every font survives text -> RAM -> text at every position.
@Suite("Round trip text -> RAM -> text")
struct RoundTripTests {
    static let printable: [Character] = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }

    /// Characters each font accepts, found by asking the parser.
    static func accepted(by kind: LayoutKind) -> [Character] {
        printable.filter { character in
            character != "." && character != ":" && (try? Frame(String(character), kind: kind)) != nil
        }
    }

    @Test func sevenSegmentCharacterSet() {
        let expected = Array("0123456789ABCDEFGHIJLNOPQRSTUVY-_ ") + Array("abcdefghijlnopqrstuvy")
        #expect(Set(Self.accepted(by: .seg7x4)) == Set(expected))
        #expect(Set(Self.accepted(by: .bigseg7x4)) == Set(expected))
    }

    @Test func fourteenSegmentTakesAllPrintableASCII() {
        #expect(Self.accepted(by: .seg14x4).count == 93) // 95 printable minus '.' and ':'
        #expect((try? Frame(":", kind: .seg14x4)) != nil)
    }

    @Test("canonical characters round-trip exactly", arguments: LayoutKind.allCases)
    func canonicalRoundTrip(_ kind: LayoutKind) throws {
        for character in Self.accepted(by: kind) {
            for index in 0..<kind.positions {
                var cells = Array(repeating: Character(" "), count: kind.positions)
                cells[index] = character
                let frame = try Frame(String(cells), kind: kind)
                let decoded = try Frame(ram: frame.ram(), kind: kind)
                #expect(decoded == frame, "\(kind) \(character) at \(index)")
                #expect(try Frame(decoded.text, kind: kind) == frame)
                if kind.hasDecimalPoints && character != "!" && character != "?" {
                    let dotted = try Frame(String(cells[...index]) + "." + String(cells[(index + 1)...]), kind: kind)
                    #expect(try Frame(ram: dotted.ram(), kind: kind) == dotted, "\(kind) \(character). at \(index)")
                }
            }
        }
    }

    @Test("7-segment aliases decode to the canonical character", arguments: [
        ("S", "5"), ("s", "5"), ("a", "A"), ("b", "B"), ("o", "O"), ("l", "L"), ("y", "Y"), ("t", "T"),
    ])
    func sevenSegmentAliases(_ typed: String, _ decoded: String) throws {
        let frame = try Frame(typed, kind: .seg7x4)
        #expect(try Frame(ram: frame.ram(), kind: .seg7x4).text == "   " + decoded)
    }

    @Test("14-segment shared patterns decode to one character", arguments: [
        (":", "I"), ("|", "I"), ("[", "C"), ("f", "F"), ("!", "1."),
    ])
    func fourteenSegmentAliases(_ typed: String, _ decoded: String) throws {
        let frame = try Frame(typed, kind: .seg14x4)
        #expect(try Frame(ram: frame.ram(), kind: .seg14x4).text == "   " + decoded)
    }

    @Test func matrixTime() throws {
        let frame = try Frame("88:88", kind: .matrix16x8)
        let decoded = try Frame(ram: frame.ram(), kind: .matrix16x8)
        #expect(decoded.text == "88:88")
        #expect(try Frame(ram: Frame("-5", kind: .matrix8x8).ram(), kind: .matrix8x8).text == "-5")
        // Every position and the colon land where documented.
        let grid = frame.pixelGrid()
        #expect(grid[7, 2] && grid[7, 4] && !grid[7, 3])
        #expect(grid[0, 0] && grid[15, 6] && !grid[3, 0] && !grid[0, 7])
    }

    @Test func garbageIsReportedNotGuessed() {
        let garbage: [UInt8] = [0xFF, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        for kind in LayoutKind.allCases {
            #expect(throws: SegmentDisplayError.self) { try Frame(ram: garbage, kind: kind) }
        }
        #expect(throws: SegmentDisplayError.wrongRAMSize(3)) { try Frame(ram: [1, 2, 3], kind: .seg7x4) }
    }

    @Test func hexRoundTrip() throws {
        let ram: [UInt8] = (0..<16).map { UInt8($0 * 17) }
        #expect(ramHex(ram) == "00112233445566778899aabbccddeeff")
        #expect(try ramFromHex("00112233445566778899AABBCCDDEEFF") == ram)
        #expect(throws: SegmentDisplayError.invalidHex("xyz")) { try ramFromHex("xyz") }
    }
}
