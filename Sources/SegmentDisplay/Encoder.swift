extension Frame {
    /// Digit byte offsets in display RAM on the 7-segment backpacks
    /// (Adafruit `_AbstractSeg7x4.POSITIONS`).
    static let sevenSegmentDigitBytes = [0, 2, 6, 8]
    /// Display RAM byte holding the colon and indicator dots on 7-segment backpacks.
    static let sevenSegmentColonByte = 4
    /// Colon bit in byte 4 (Adafruit `Colon.MASKS[0]`).
    static let colonBit: UInt8 = 0x02

    /// The 16 HT16K33 display RAM bytes (register 0x00...0x0F) for this frame.
    public func ram() -> [UInt8] {
        switch kind {
        case .seg7x4, .bigseg7x4: sevenSegmentRAM()
        case .seg14x4: fourteenSegmentRAM()
        case .matrix8x8, .matrix16x8: pixelGrid().ram()
        }
    }

    private func sevenSegmentRAM() -> [UInt8] {
        var ram = [UInt8](repeating: 0, count: 16)
        for (cell, byte) in zip(cells, Self.sevenSegmentDigitBytes) {
            var bits = SevenSegmentFont.bits(for: cell.character) ?? 0
            if cell.point { bits |= SevenSegmentFont.decimalPoint }
            ram[byte] = bits
        }
        ram[Self.sevenSegmentColonByte] = (colon ? Self.colonBit : 0) | indicators.rawValue
        return ram
    }

    private func fourteenSegmentRAM() -> [UInt8] {
        var ram = [UInt8](repeating: 0, count: 16)
        for (index, cell) in cells.enumerated() {
            var bits = FourteenSegmentFont.bits(for: cell.character) ?? 0
            if cell.point { bits |= FourteenSegmentFont.decimalPoint }
            ram[2 * index] = UInt8(truncatingIfNeeded: bits)
            ram[2 * index + 1] = UInt8(truncatingIfNeeded: bits >> 8)
        }
        return ram
    }

    /// The frame drawn with `MatrixFont` (matrix kinds only).
    public func pixelGrid() -> PixelGrid {
        var grid = PixelGrid(kind: kind)
        let layout = MatrixFont.columns(for: kind)
        for (cell, left) in zip(cells, layout.digits) {
            let glyph = MatrixFont.glyph(for: cell.character) ?? []
            for (row, bits) in glyph.enumerated() {
                for column in 0..<MatrixFont.width where bits & (1 << UInt8(column)) != 0 {
                    grid[left + column, row] = true
                }
            }
        }
        if colon, let column = layout.colon {
            for row in MatrixFont.colonRows { grid[column, row] = true }
        }
        return grid
    }
}
