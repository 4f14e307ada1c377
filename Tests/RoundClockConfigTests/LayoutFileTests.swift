import Foundation
import RoundClockCore
import SegmentDisplay
import Testing
@testable import RoundClockConfig

/// `[layouts.NAME]` in board files: custom-wired panels, and one-line errors for bad wiring.
@Suite struct LayoutFileTests {
    static func digit(_ com: Int, dp: Bool = true) -> String {
        "{ com = \(com), a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g = 6\(dp ? ", dp = 7" : "") }"
    }

    /// A board with a 6-digit time panel (`big6`) and a 2-digit round panel (`big2`).
    static func board(big6 digits: [String] = (0..<6).map { digit($0) },
                      colons: String = "[{ after = 2, com = 6, rows = [0, 1] }, { after = 4, com = 6, rows = [2, 3] }]",
                      font: String = "\"7-segment\"", extra: String = "") -> String {
        """
        name = "big"
        [layouts.big6]
        font = \(font)
        digits = [\(digits.joined(separator: ", "))]
        colons = \(colons)
        \(extra)
        [layouts.big2]
        font = "7-segment"
        digits = [\(digit(0, dp: false)), \(digit(1, dp: false))]
        [[panels]]
        role = "time"
        kind = "big6"
        address = 0x70
        [[panels]]
        role = "round"
        kind = "big2"
        address = 0x71
        """
    }

    @Test func theShippedBigDigitsBoard() throws {
        let board = try BoardFile.load(BoardFileTests.repository.appendingPathComponent("boards/bigdigits.toml").path)
        #expect(board.panelWidths == PanelWidths(time: 6, round: 2))
        let time = try #require(board.panels.first { $0.role == .time }?.kind)
        #expect(time.rawValue == "big6" && time.font == .sevenSegment && time.positions == 6)
        #expect(time.digits[5].segments == (0..<7).map { RAMBit(com: 5, row: $0) } && time.digits[5].point == RAMBit(com: 5, row: 7))
        #expect(time.colons == [ColonWiring(after: 2, bits: [RAMBit(com: 6, row: 0), RAMBit(com: 6, row: 1)]),
                                ColonWiring(after: 4, bits: [RAMBit(com: 6, row: 2), RAMBit(com: 6, row: 3)])])
        let hours = try Frame(" 1:59:59", kind: time)
        #expect(ramHex(hours.ram()) == "000006006d006f006d006f000f000000")
    }

    @Test func segmentsOnOtherCommonsAndHighRows() throws {
        let digits = (0..<6).map { "{ com = \($0), a = [7, \($0 + 8)], b = 9, c = 10, d = 11, e = 12, f = 13, g = 14, dp = 15 }" }
        let board = try BoardFile.parse(Self.board(big6: digits, colons: "[{ after = 2, com = 6, rows = 0 }, { after = 4, com = 6, rows = 1 }]"), file: "x.toml")
        let time = try #require(board.panels.first?.kind)
        #expect(time.digits[0].segments.first == RAMBit(com: 7, row: 8))
        #expect(time.digits[0].segments.first?.byte == 15 && time.digits[0].segments.first?.mask == 0x01)
        let eight = try Frame("8", kind: time)
        #expect(ramHex(eight.ram()) == "00000000000000000000007e00000020")
    }

    /// The generated corpus: every segment key of every digit missing, out of range, and
    /// reusing another segment's bit; plus the layout-wide mistakes. Each is one line
    /// naming the file, the key path, the value and what is allowed.
    static var corpus: [(text: String, location: String, message: String)] {
        var cases: [(String, String, String)] = []
        let names = ["a", "b", "c", "d", "e", "f", "g"]
        for index in 0..<6 {
            for (row, name) in names.enumerated() {
                var missing = (0..<6).map { digit($0) }
                missing[index] = missing[index].replacingOccurrences(of: "\(name) = \(row), ", with: "").replacingOccurrences(of: ", \(name) = \(row) ", with: " ")
                cases.append((board(big6: missing), "layouts.big6.digits[\(index + 1)].\(name)", "missing; a 7-segment digit needs a, b, c, d, e, f, g"))
                var outOfRange = (0..<6).map { digit($0) }
                outOfRange[index] = outOfRange[index].replacingOccurrences(of: "\(name) = \(row)", with: "\(name) = 16")
                cases.append((board(big6: outOfRange), "layouts.big6.digits[\(index + 1)].\(name)", "ROW 16 is out of range; allowed are 0 to 15"))
                var twice = (0..<6).map { digit($0) }
                let other = (row + 1) % 7
                twice[index] = twice[index].replacingOccurrences(of: "\(name) = \(row)", with: "\(name) = \(other)")
                let (first, second) = row < other ? (name, names[other]) : (names[other], name)
                let later = row < other ? names[other] : name
                cases.append((board(big6: twice), "layouts.big6.digits[\(index + 1)].\(later)",
                              "COM\(index) ROW\(other) (RAM byte \(2 * index) bit \(other)) is already used by digit \(index + 1) segment \(first == later ? second : first)"))
            }
            var pair = (0..<6).map { digit($0) }
            pair[index] = pair[index].replacingOccurrences(of: "a = 0", with: "a = [8, 0]")
            cases.append((board(big6: pair), "layouts.big6.digits[\(index + 1)].a", "COM 8 in [8, 0] is out of range; allowed are 0 to 7"))
            var noCom = (0..<6).map { digit($0) }
            noCom[index] = noCom[index].replacingOccurrences(of: "com = \(index), ", with: "")
            cases.append((board(big6: noCom), "layouts.big6.digits[\(index + 1)].a", "0 is a ROW but the digit has no com"))
        }
        cases += [
            (board(big6: (0..<9).map { digit($0 % 8) }), "layouts.big6.digits", "9 digits; allowed are 1 to 8"),
            (board(big6: []), "layouts.big6.digits", "0 digits; allowed are 1 to 8"),
            (board(big6: (0..<6).map { digit($0) } + [digit(0)]), "layouts.big6.digits[7].a", "COM0 ROW0 (RAM byte 0 bit 0) is already used by digit 1 segment a"),
            (board(colons: "[{ after = 2, com = 0, rows = [0, 1] }]"), "layouts.big6.colons[1].rows", "already used by digit 1 segment a"),
            (board(colons: "[{ after = 6, com = 6, rows = [0, 1] }]"), "layouts.big6.colons[1].after", "6 is out of range; allowed are 1 to 5"),
            (board(colons: "[{ after = 2, com = 6, rows = [16] }]"), "layouts.big6.colons[1].rows", "16 is out of range; allowed are 0 to 15"),
            (board(colons: "[{ after = 2, com = 6, rows = [0] }, { after = 2, com = 6, rows = [1] }]"), "layouts.big6.colons[2].after", "already defined"),
            (board(colons: "[{ after = 2, rows = [0] }]"), "layouts.big6.colons[1].com", "missing"),
            (board(colons: "[]"), "panels[1].kind", "a big6 cannot be the time panel: it cannot show \" 0:00\" (big6 cannot show the character \":\")"),
            (board(font: "\"9-segment\""), "layouts.big6.font", "\"9-segment\" is not allowed; use one of \"7-segment\", \"14-segment\""),
            (board(font: "\"14-segment\""), "layouts.big6.digits[1].g1", "missing; a 14-segment digit needs a, b, c, d, e, f, g1, g2, h, j, k, l, m, n"),
            (board(extra: "wiring = 1"), "layouts.big6.wiring", "unknown key"),
            (board(big6: (0..<6).map { digit($0) + "" }.map { $0.replacingOccurrences(of: "dp = 7", with: "dp = 7, x = 1") }), "layouts.big6.digits[1].x", "unknown key"),
            (board().replacingOccurrences(of: "[layouts.big2]", with: "[layouts.seg7x4]"), "layouts.seg7x4", "is a built-in layout"),
            (board().replacingOccurrences(of: "[layouts.big2]", with: "[layouts.\"a b\"]"), "layouts.\"a b\"", "not a usable layout name"),
            (board().replacingOccurrences(of: "kind = \"big6\"", with: "kind = \"big7\""), "panels[1].kind", "\"big7\" is not allowed; use one of \"seg7x4\", \"bigseg7x4\", \"seg14x4\", \"matrix8x8\", \"matrix16x8\", \"big2\", \"big6\""),
            (board().replacingOccurrences(of: "kind = \"big6\"", with: "kind = \"big2\""), "panels[1].kind", "a big2 cannot be the time panel: it cannot show \" 0:00\""),
        ]
        return cases
    }

    @Test func badLayoutsNameTheKeyTheValueAndTheRule() {
        let corpus = Self.corpus
        #expect(corpus.count > 140)
        for (text, location, message) in corpus {
            do {
                let board = try BoardFile.parse(text, file: "big.toml")
                Issue.record("accepted: \(location) \(board.name)")
            } catch {
                #expect(error.file == "big.toml")
                #expect(error.location == location, "\(error)")
                #expect(error.message.contains(message), "\(error)")
                #expect(!error.description.contains("\n"), "one line: \(error)")
            }
        }
    }
}
