import Hex

extension Frame {
    /// Decodes 16 bytes of display RAM back into the frame the encoder would have
    /// produced them from.
    /// Any bit the layout's encoder never sets is an error, so garbage RAM
    /// (power-up, power loss) is reported instead of guessed at.
    public init(ram: [UInt8], kind: LayoutKind) throws(SegmentDisplayError) {
        guard ram.count == 16 else { throw .wrongRAMSize(ram.count) }
        switch kind {
        case .seg7x4, .bigseg7x4: self = try Self.decodeSevenSegment(ram, kind: kind)
        case .seg14x4: self = try Self.decodeFourteenSegment(ram)
        case .matrix8x8, .matrix16x8: self = try Self.decodeMatrix(ram, kind: kind)
        }
    }

    private static func decodeSevenSegment(
        _ ram: [UInt8], kind: LayoutKind
    ) throws(SegmentDisplayError) -> Frame {
        var frame = Frame(kind: kind)
        for (index, byte) in sevenSegmentDigitBytes.enumerated() {
            let value = ram[byte]
            let point = value & SevenSegmentFont.decimalPoint != 0
            if point && !kind.hasDecimalPoints {
                throw .undecodable(kind, detail: "byte \(byte) has the DP bit; \(kind) has no decimal points")
            }
            guard let character = SevenSegmentFont.character(for: value & 0x7F) else {
                throw .undecodable(kind, detail: "byte \(byte) = 0x\(hex(value, digits: 2)) is no glyph")
            }
            frame.cells[index] = Cell(character, point: point)
        }
        let marks = ram[sevenSegmentColonByte]
        let allowed = colonBit | (kind.hasIndicators ? Indicators.all.rawValue : 0)
        guard marks & ~allowed == 0 else {
            throw .undecodable(kind, detail: "byte 4 = 0x\(hex(marks, digits: 2)) has unknown bits")
        }
        frame.colon = marks & colonBit != 0
        frame.indicators = Indicators(rawValue: marks & Indicators.all.rawValue)
        for byte in 0..<16 where !sevenSegmentDigitBytes.contains(byte)
            && byte != sevenSegmentColonByte && ram[byte] != 0 {
            throw .undecodable(kind, detail: "byte \(byte) = 0x\(hex(ram[byte], digits: 2)) is not used by \(kind)")
        }
        return frame
    }

    private static func decodeFourteenSegment(_ ram: [UInt8]) throws(SegmentDisplayError) -> Frame {
        var frame = Frame(kind: .seg14x4)
        for index in 0..<frame.cells.count {
            let bits = UInt16(ram[2 * index]) | UInt16(ram[2 * index + 1]) << 8
            let withoutPoint = bits & ~FourteenSegmentFont.decimalPoint
            if bits != withoutPoint, let character = FourteenSegmentFont.characterByBits[withoutPoint] {
                frame.cells[index] = Cell(character, point: true)
            } else if let character = FourteenSegmentFont.characterByBits[bits] {
                frame.cells[index] = Cell(character)
            } else {
                throw .undecodable(.seg14x4, detail: "position \(index) = 0x\(hex(bits, digits: 4)) is no glyph")
            }
        }
        for byte in 8..<16 where ram[byte] != 0 {
            throw .undecodable(.seg14x4, detail: "byte \(byte) = 0x\(hex(ram[byte], digits: 2)) is not used by seg14x4")
        }
        return frame
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
            frame.colon = grid[column, MatrixFont.colonRows[0]]
        }
        guard frame.pixelGrid() == grid else {
            throw .undecodable(kind, detail: "pixels lit outside the font's glyph and colon cells")
        }
        return frame
    }
}

