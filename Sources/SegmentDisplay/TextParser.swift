/// Panel text -> Frame. The format is the interchange contract with the timing
/// core: one character per position; `:` between the 2nd and 3rd position lights
/// the colon (kinds with `hasColon`; on `seg14x4` `:` is an ordinary glyph);
/// `.` lights the decimal point of the previous position. Short text is
/// right-aligned; text longer than the panel is an error.
///
/// Following Adafruit's `_push` (segments.py), a `.` with no previous position, or
/// after a position whose point is already lit (including the 14-segment `?`,
/// whose glyph contains DP), occupies a new blank position with its point lit.
enum TextParser {
    static func parse(_ text: String, kind: LayoutKind) throws(SegmentDisplayError) -> Frame {
        var cells: [Frame.Cell] = []
        var colonAt: Int?
        for character in text {
            if character == "." {
                guard kind.hasDecimalPoints else { throw .noDecimalPoints(text, kind) }
                if let last = cells.indices.last, !pointLit(cells[last], kind: kind) {
                    cells[last].point = true
                } else {
                    cells.append(Frame.Cell(" ", point: true))
                }
            } else if character == ":" && kind.hasColon {
                guard colonAt == nil else { throw .misplacedColon(text, kind) }
                colonAt = cells.count
            } else {
                cells.append(try canonicalCell(character, kind: kind))
            }
        }
        guard cells.count <= kind.positions else {
            throw .textTooLong(text, needed: cells.count, kind)
        }
        if let colonAt, cells.count - colonAt != kind.positions - kind.colonAfterPosition {
            throw .misplacedColon(text, kind)
        }
        var frame = Frame(kind: kind)
        frame.cells.replaceSubrange((kind.positions - cells.count)..., with: cells)
        frame.colon = colonAt != nil
        return frame
    }

    /// Whether the position's DP is lit, by its point or by the glyph itself.
    private static func pointLit(_ cell: Frame.Cell, kind: LayoutKind) -> Bool {
        if cell.point { return true }
        guard kind == .seg14x4, let bits = FourteenSegmentFont.bits(for: cell.character)
        else { return false }
        return bits & FourteenSegmentFont.decimalPoint != 0
    }

    /// The cell for one character in the canonical form decoding returns.
    private static func canonicalCell(
        _ character: Character, kind: LayoutKind
    ) throws(SegmentDisplayError) -> Frame.Cell {
        switch kind {
        case .seg7x4, .bigseg7x4:
            guard let bits = SevenSegmentFont.bits(for: character),
                  let canonical = SevenSegmentFont.character(for: bits)
            else { throw .unsupportedCharacter(character, kind) }
            return Frame.Cell(canonical)
        case .seg14x4:
            if character == "!" { return Frame.Cell("1", point: true) }
            guard let bits = FourteenSegmentFont.bits(for: character),
                  let canonical = FourteenSegmentFont.characterByBits[bits]
            else { throw .unsupportedCharacter(character, kind) }
            return Frame.Cell(canonical)
        case .matrix8x8, .matrix16x8:
            guard MatrixFont.glyph(for: character) != nil else {
                throw .unsupportedCharacter(character, kind)
            }
            return Frame.Cell(character)
        }
    }
}
