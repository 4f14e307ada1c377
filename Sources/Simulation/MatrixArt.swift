import SegmentDisplay

/// Dot-grid art for the LED matrices: one mark per pixel, a space between
/// columns, 8 lines.
enum MatrixArt {
    static func canvas(kind: LayoutKind, ram: [UInt8]) -> Canvas {
        var grid = PixelGrid(kind: kind)
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let (byte, bit) = grid.location(x: x, y: y)
                grid[x, y] = ram[byte] & (1 << UInt8(bit)) != 0
            }
        }
        var canvas = Canvas(height: grid.height)
        canvas.rows = (0..<grid.height).map { y in
            var row: [Mark] = []
            for x in 0..<grid.width {
                if x > 0 { row.append(.blank) }
                row.append(Mark(shape: .pixel, lit: grid[x, y]))
            }
            return row
        }
        return canvas
    }
}
