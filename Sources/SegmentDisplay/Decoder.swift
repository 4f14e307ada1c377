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
        let digits = kind.digits
        for index in 0..<digits.count {
            let wiring = digits[index]
            let count = wiring.segments.count
            var bits: UInt16 = 0
            var point = false
            if let byte = wiring.firstByte {
                // Font bit i is RAM bit i from `byte` on (the Adafruit wiring).
                let word = UInt16(ram[byte]) | (count >= 8 && byte + 1 < 16 ? UInt16(ram[byte + 1]) << 8 : 0)
                bits = word & (1 << UInt16(count) - 1)
                point = wiring.point != nil && word & (1 << UInt16(count)) != 0
            } else {
                for bit in 0..<count where ram[wiring.segments[bit].byte] & wiring.segments[bit].mask != 0 {
                    bits |= 1 << UInt16(bit)
                }
                if let wire = wiring.point { point = ram[wire.byte] & wire.mask != 0 }
            }
            frame.cells[index] = try cell(bits: bits, point: point, font: kind.font, kind: kind, position: index)
        }
        let colons = kind.colons
        for index in 0..<colons.count {
            let bits = colons[index].bits
            let lit = bits.filter { ram[$0.byte] & $0.mask != 0 }.count
            guard lit == 0 || lit == bits.count else {
                throw .undecodable(kind, detail: "colon after position \(colons[index].after) is only partly lit")
            }
            if lit > 0 { frame.colonMask |= 1 << UInt16(index) }
        }
        for (wire, dot) in zip(kind.indicatorWires, Indicators.ordered) where ram[wire.byte] & wire.mask != 0 {
            frame.indicators.insert(dot)
        }
        let used = kind.storage.usedBits
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
            if grid[column, MatrixFont.colonRows[0]] { frame.colonMask = 1 }
        }
        guard frame.pixelGrid() == grid else {
            throw .undecodable(kind, detail: "pixels lit outside the font's glyph and colon cells")
        }
        return frame
    }
}
