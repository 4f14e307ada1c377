/// Panel text -> Frame. The format is the interchange contract with the timing
/// core: one character per position; `:` lights the colon wired after the position it
/// follows (kinds with `hasColon`: on the 4-digit backpacks between the 2nd and 3rd
/// position; on `seg14x4` `:` is an ordinary glyph); `.` lights the decimal point of the
/// previous position. Short text is right-aligned; text longer than the panel is an error.
///
/// Following Adafruit's `_push` (segments.py), a `.` with no previous position, or
/// after a position whose point is already lit (including the 14-segment `?`,
/// whose glyph contains DP), occupies a new blank position with its point lit.
///
/// On 7 segments `+` is a sign only: it must stand right before a digit (`+1:05`), and is
/// drawn as segments E F G (see `SevenSegmentFont`).
enum TextParser {
    static func parse(_ text: String, kind: LayoutKind) throws(SegmentDisplayError) -> Frame {
        var cells: [Frame.Cell] = []
        // Bit c: a `:` after c cells (a mask, not an array: no allocation per text).
        var colonsAt: UInt32 = 0
        var signAt: Int?
        for character in text {
            if let sign = signAt, sign == cells.count - 1, !character.isWholeNumber {
                throw .unsupportedCharacter("+", kind)
            }
            if character == "." {
                guard kind.hasDecimalPoints else { throw .noDecimalPoints(text, kind) }
                if let last = cells.indices.last, !pointLit(cells[last], kind: kind) {
                    cells[last].point = true
                } else {
                    cells.append(Frame.Cell(" ", point: true))
                }
            } else if character == ":" && kind.hasColon {
                let bit: UInt32 = 1 << UInt32(min(cells.count, 31))
                guard colonsAt & bit == 0 else { throw .misplacedColon(text, kind) }
                colonsAt |= bit
            } else {
                if character == "+" && kind.font == .sevenSegment { signAt = cells.count }
                cells.append(try canonicalCell(character, kind: kind))
            }
        }
        if let sign = signAt, sign == cells.count - 1 { throw .unsupportedCharacter("+", kind) }
        guard cells.count <= kind.positions else {
            throw .textTooLong(text, needed: cells.count, kind)
        }
        let offset = kind.positions - cells.count
        var frame = Frame(kind: kind)
        for at in 0..<(colonsAt == 0 ? 0 : 32) where colonsAt & (1 << UInt32(at)) != 0 {
            guard let index = kind.colons.firstIndex(where: { $0.after == at + offset }), !frame.isColonLit(index) else {
                throw .misplacedColon(text, kind)
            }
            frame.colonMask |= 1 << UInt16(index)
        }
        for (index, cell) in cells.enumerated() where cell.point && !kind.hasPoint(at: index + offset) {
            throw .noDecimalPoints(text, kind)
        }
        frame.cells.replaceSubrange(offset..., with: cells)
        return frame
    }

    /// Whether the position's DP is lit, by its point or by the glyph itself.
    private static func pointLit(_ cell: Frame.Cell, kind: LayoutKind) -> Bool {
        if cell.point { return true }
        guard kind.font == .fourteenSegment, let bits = FourteenSegmentFont.bits(for: cell.character)
        else { return false }
        return bits & FourteenSegmentFont.decimalPoint != 0
    }

    /// The cell for one character in the canonical form decoding returns.
    private static func canonicalCell(
        _ character: Character, kind: LayoutKind
    ) throws(SegmentDisplayError) -> Frame.Cell {
        switch kind.font {
        case .sevenSegment:
            guard let bits = SevenSegmentFont.bits(for: character),
                  let canonical = SevenSegmentFont.character(for: bits)
            else { throw .unsupportedCharacter(character, kind) }
            return Frame.Cell(canonical)
        case .fourteenSegment:
            if character == "!" { return Frame.Cell("1", point: true) }
            guard let bits = FourteenSegmentFont.bits(for: character),
                  let canonical = FourteenSegmentFont.characterByBits[bits]
            else { throw .unsupportedCharacter(character, kind) }
            return Frame.Cell(canonical)
        case .matrix:
            guard MatrixFont.glyph(for: character) != nil else {
                throw .unsupportedCharacter(character, kind)
            }
            return Frame.Cell(character)
        }
    }
}
