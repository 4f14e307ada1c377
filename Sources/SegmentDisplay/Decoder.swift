import Hex

extension Frame {
    /// Decodes 16 bytes of display RAM back into the frame the encoder would have
    /// produced them from.
    /// Any bit the layout's encoder never sets is an error, so garbage RAM
    /// (power-up, power loss) is reported instead of guessed at.
    public init(ram: [UInt8], kind: LayoutKind) throws(SegmentDisplayError) {
        guard ram.count == 16 else { throw .wrongRAMSize(ram.count) }
        if kind.isMatrix {
            self = try Self.decodeMatrix(ram, kind: kind)
        } else {
            self = try Self.decodeSegments(ram, kind: kind)
        }
    }

    /// Reads each position's segments, points, colons and dots through the layout's
    /// wiring, then checks that no other bit is lit.
    private static func decodeSegments(_ ram: [UInt8], kind: LayoutKind) throws(SegmentDisplayError) -> Frame {
        var frame = Frame(kind: kind)
        var used = [UInt8](repeating: 0, count: 16)
        func lit(_ wire: RAMBit) -> Bool {
            used[wire.byte] |= wire.mask
            return ram[wire.byte] & wire.mask != 0
        }
        for (index, wiring) in kind.digits.enumerated() {
            var bits: UInt16 = 0
            for (bit, wire) in wiring.segments.enumerated() where lit(wire) { bits |= 1 << UInt16(bit) }
            let point = wiring.point.map(lit) ?? false
            frame.cells[index] = try cell(bits: bits, point: point, font: kind.font, kind: kind, position: index)
        }
        for (index, colon) in kind.colons.enumerated() {
            let states = colon.bits.map(lit)
            guard states.allSatisfy({ $0 == states.first }) else {
                throw .undecodable(kind, detail: "colon after position \(colon.after) is only partly lit")
            }
            frame.litColons[index] = states.first ?? false
        }
        for (wire, dot) in zip(kind.indicatorWires, Indicators.ordered) where lit(wire) {
            frame.indicators.insert(dot)
        }
        for byte in 0..<16 where ram[byte] & ~used[byte] != 0 {
            throw .undecodable(kind, detail: "byte \(byte) = 0x\(hex(ram[byte], digits: 2)) has bits not used by \(kind)")
        }
        return frame
    }

    /// The cell for one position's segment bits (font bit order, DP apart).
    private static func cell(bits: UInt16, point: Bool, font: LayoutKind.Font, kind: LayoutKind,
                             position: Int) throws(SegmentDisplayError) -> Cell {
        if font == .fourteenSegment {
            if point, let character = FourteenSegmentFont.characterByBits[bits] {
                return Cell(character, point: true)
            }
            let withPoint = point ? bits | FourteenSegmentFont.decimalPoint : bits
            guard let character = FourteenSegmentFont.characterByBits[withPoint] else {
                throw .undecodable(kind, detail: "position \(position) = 0x\(hex(withPoint, digits: 4)) is no glyph")
            }
            return Cell(character)
        }
        guard let character = SevenSegmentFont.character(for: UInt8(truncatingIfNeeded: bits)) else {
            throw .undecodable(kind, detail: "position \(position) = 0x\(hex(UInt8(truncatingIfNeeded: bits), digits: 2)) is no glyph")
        }
        return Cell(character, point: point)
    }

    private static func decodeMatrix(_ ram: [UInt8], kind: LayoutKind) throws(SegmentDisplayError) -> Frame {
        let grid = try PixelGrid(ram: ram, kind: kind)
        var frame = Frame(kind: kind)
        let layout = MatrixFont.columns(for: kind)
        for (index, left) in layout.digits.enumerated() {
            var glyph = MatrixFont.Glyph(repeating: 0, count: MatrixFont.height)
            for row in 0..<MatrixFont.height {
                for column in 0..<MatrixFont.width where grid[left + column, row] {
                    glyph[row] |= 1 << UInt8(column)
                }
            }
            guard let character = MatrixFont.characterByGlyph[glyph] else {
                throw .undecodable(kind, detail: "position \(index) shows no glyph of the matrix font")
            }
            frame.cells[index] = Cell(character)
        }
        if let column = layout.colon {
            frame.litColons[0] = grid[column, MatrixFont.colonRows[0]]
        }
        guard frame.pixelGrid() == grid else {
            throw .undecodable(kind, detail: "pixels lit outside the font's glyph and colon cells")
        }
        return frame
    }
}
