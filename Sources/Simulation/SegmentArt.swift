import SegmentDisplay

/// 5-line segment art for the 7- and 14-segment backpacks, from raw display RAM
/// (so garbage RAM is drawn as the chip would light it).
enum SegmentArt {
    static let height = 5

    /// Bit per segment for 7 segments (Adafruit wiring): A=0 ... G=6, DP=7.
    /// Cell 5 wide + DP column:
    /// ```
    ///  aaa
    /// f   b
    ///  ggg
    /// e   c
    ///  ddd p
    /// ```
    static func sevenSegment(_ bits: UInt8, hasPoint: Bool) -> [[Mark]] {
        func on(_ bit: Int) -> Bool { bits & (1 << UInt8(bit)) != 0 }
        let h: (Int) -> Mark = { Mark(shape: .horizontal, lit: on($0)) }
        let v: (Int) -> Mark = { Mark(shape: .vertical, lit: on($0)) }
        let b = Mark.blank
        let point = hasPoint ? Mark(shape: .dot, lit: on(7)) : b
        return [
            [b, h(0), h(0), h(0), b, b],
            [v(5), b, b, b, v(1), b],
            [b, h(6), h(6), h(6), b, b],
            [v(4), b, b, b, v(2), b],
            [b, h(3), h(3), h(3), b, point],
        ]
    }

    /// Bit per segment for 14 segments: A..F = 0...5, G1 = 6, G2 = 7, H = 8,
    /// J = 9, K = 10, L = 11, M = 12, N = 13, DP = 14. Cell 7 wide + DP column:
    /// ```
    ///  aaaaa
    /// fh j kb
    ///  11 22
    /// el m nc
    ///  ddddd p
    /// ```
    static func fourteenSegment(_ bits: UInt16) -> [[Mark]] {
        func on(_ bit: Int) -> Bool { bits & (1 << UInt16(bit)) != 0 }
        func m(_ shape: Mark.Shape, _ bit: Int) -> Mark { Mark(shape: shape, lit: on(bit)) }
        let b = Mark.blank
        return [
            [b, m(.horizontal, 0), m(.horizontal, 0), m(.horizontal, 0), m(.horizontal, 0), m(.horizontal, 0), b, b],
            [m(.vertical, 5), m(.backslash, 8), b, m(.vertical, 9), b, m(.slash, 10), m(.vertical, 1), b],
            [b, m(.horizontal, 6), m(.horizontal, 6), b, m(.horizontal, 7), m(.horizontal, 7), b, b],
            [m(.vertical, 4), m(.slash, 11), b, m(.vertical, 12), b, m(.backslash, 13), m(.vertical, 2), b],
            [b, m(.horizontal, 3), m(.horizontal, 3), m(.horizontal, 3), m(.horizontal, 3), m(.horizontal, 3), b, m(.dot, 14)],
        ]
    }

    /// A column of dots at the given rows (colon, indicators).
    static func dots(_ rows: [Int: Bool]) -> [[Mark]] {
        (0..<height).map { row in
            guard let lit = rows[row] else { return [Mark.blank] }
            return [Mark(shape: .dot, lit: lit)]
        }
    }

    static let gap: [[Mark]] = Array(repeating: [Mark.blank], count: height)

    /// Art for a segment layout (matrix kinds belong to `MatrixArt`), read through its
    /// wiring: digits left to right, a colon's dots where it is wired, the 1.2" backpack's
    /// indicator dots left (upper, lower) and right (AM/PM).
    static func canvas(kind: LayoutKind, ram: [UInt8]) -> Canvas {
        var canvas = Canvas(height: height)
        func lit(_ wire: RAMBit) -> Bool { ram[wire.byte] & wire.mask != 0 }
        let dotsLit = kind.indicatorWires.map(lit)
        if dotsLit.count == 3 {
            canvas.append(dots([1: dotsLit[0], 3: dotsLit[1]]))
            canvas.append(gap)
        }
        for (index, wiring) in kind.digits.enumerated() {
            if index > 0 { canvas.append(gap) }
            for colon in kind.colons where colon.after == index {
                let on = colon.bits.contains(where: lit)
                canvas.append(dots([1: on, 3: on]))
                canvas.append(gap)
            }
            var bits: UInt16 = 0
            for (bit, wire) in wiring.segments.enumerated() where lit(wire) { bits |= 1 << UInt16(bit) }
            let point = wiring.point.map(lit) ?? false
            if kind.font == .fourteenSegment {
                canvas.append(fourteenSegment(bits | (point ? 1 << 14 : 0)))
            } else {
                canvas.append(sevenSegment(UInt8(truncatingIfNeeded: bits) | (point ? 0x80 : 0), hasPoint: wiring.point != nil))
            }
        }
        if dotsLit.count == 3 { canvas.append(dots([0: dotsLit[2]])) }
        return canvas
    }
}
