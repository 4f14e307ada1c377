extension Frame {
    /// The 16 HT16K33 display RAM bytes (register 0x00...0x0F) for this frame: each lit
    /// segment, point, colon and indicator sets its bit of the layout's wiring.
    public func ram() -> [UInt8] {
        if kind.isMatrix { return pixelGrid().ram() }
        var ram = [UInt8](repeating: 0, count: 16)
        let digits = kind.digits
        for index in 0..<min(cells.count, digits.count) {
            let wiring = digits[index]
            var bits = glyphBits(cells[index].character)
            if cells[index].point { bits |= pointBit }
            if let byte = wiring.firstByte {
                // Font bit i is RAM bit i from `byte` on (the Adafruit wiring).
                if wiring.point == nil { bits &= pointBit - 1 }
                ram[byte] |= UInt8(truncatingIfNeeded: bits)
                if bits > 0xFF, byte + 1 < 16 { ram[byte + 1] |= UInt8(truncatingIfNeeded: bits >> 8) }
                continue
            }
            for (bit, wire) in wiring.segments.enumerated() where bits & (1 << UInt16(bit)) != 0 {
                ram[wire.byte] |= wire.mask
            }
            if let point = wiring.point, bits & pointBit != 0 { ram[point.byte] |= point.mask }
        }
        if colonMask != 0 {
            for (index, colon) in kind.colons.enumerated() where isColonLit(index) {
                for wire in colon.bits { ram[wire.byte] |= wire.mask }
            }
        }
        for (wire, dot) in zip(kind.indicatorWires, Indicators.ordered) where indicators.contains(dot) {
            ram[wire.byte] |= wire.mask
        }
        return ram
    }

    /// The font's segment bits for a character (DP included where the glyph has it).
    func glyphBits(_ character: Character) -> UInt16 {
        switch kind.font {
        case .sevenSegment: UInt16(SevenSegmentFont.bits(for: character) ?? 0)
        case .fourteenSegment: FourteenSegmentFont.bits(for: character) ?? 0
        case .matrix: 0
        }
    }

    /// The font bit of DP: 7 on 7 segments, 14 on 14 segments.
    var pointBit: UInt16 {
        kind.font == .fourteenSegment ? FourteenSegmentFont.decimalPoint : UInt16(SevenSegmentFont.decimalPoint)
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
