/// One bit of HT16K33 display RAM: the LED at ROW `row` (0...15, the anode driver) and
/// COM `com` (0...7, the cathode common). Datasheet "Display data address pointer" / RAM
/// map: address 2·COM + ROW/8 (0x00 = COM0 ROW0...7, 0x01 = COM0 ROW8...15), bit ROW mod 8.
public struct RAMBit: Sendable, Hashable, CustomStringConvertible {
    /// Display RAM byte 0...15.
    public let byte: Int
    /// Mask of the bit in that byte.
    public let mask: UInt8

    /// `com` 0...7 and `row` 0...15; out of range is a programming error kept harmless
    /// (wrapped into range): board files check both before building a layout.
    public init(com: Int, row: Int) {
        byte = 2 * (com & 7) + (row & 15) / 8
        mask = 1 << UInt8((row & 15) % 8)
    }

    public var com: Int { byte / 2 }
    public var row: Int { (byte % 2) * 8 + mask.trailingZeroBitCount }

    public var description: String { "COM\(com) ROW\(row) (RAM byte \(byte) bit \(mask.trailingZeroBitCount))" }
}

/// Where one position's segments are wired: `segments[i]` lights font bit i (7 segments:
/// A...G; 14 segments: A...F, G1, G2, H...N, the fonts' bit order), `point` the DP.
public struct DigitWiring: Sendable, Hashable {
    public let segments: [RAMBit]
    public let point: RAMBit?
    /// Set when font bit i is RAM bit i counted from this byte (segments, then the point, on
    /// one common as the Adafruit backpacks wire them): encoded and decoded a word at a time.
    let firstByte: Int?

    public init(segments: [RAMBit], point: RAMBit?) {
        self.segments = segments
        self.point = point
        let first = segments.first?.byte ?? 0
        func linear(_ wire: RAMBit) -> Int { wire.byte * 8 + wire.mask.trailingZeroBitCount }
        let inOrder = segments.enumerated().allSatisfy { linear($0.element) == first * 8 + $0.offset }
            && point.map { linear($0) == first * 8 + segments.count } ?? true
        firstByte = inOrder && !segments.isEmpty ? first : nil
    }

    /// The usual wiring: one common per digit, segment i on ROW `firstRow + i`, the point
    /// after the segments (Adafruit backpacks: ROW0... = A..., DP = ROW7 or ROW14).
    public static func common(_ com: Int, segments count: Int, point: Bool) -> DigitWiring {
        DigitWiring(segments: (0..<count).map { RAMBit(com: com, row: $0) },
                    point: point ? RAMBit(com: com, row: count) : nil)
    }
}

/// A colon between two positions: `:` after position `after` (1 = after the first) lights
/// every bit of `bits` (one for the Adafruit colon, often two LEDs on custom panels).
public struct ColonWiring: Sendable, Hashable {
    public let after: Int
    public let bits: [RAMBit]
    public init(after: Int, bits: [RAMBit]) {
        self.after = after
        self.bits = bits
    }
}

extension LayoutKind {
    /// Adafruit 0.56" 4-digit 7-segment backpack: digits at RAM bytes 0, 2, 6, 8 (COM0, 1,
    /// 3, 4; Adafruit `_AbstractSeg7x4.POSITIONS`), bits 0...6 = A...G, bit 7 = DP; colon =
    /// byte 4 bit 0x02 (COM2 ROW1, Adafruit `Colon.MASKS[0]`).
    public static let seg7x4 = LayoutKind(
        rawValue: "seg7x4", font: .sevenSegment, positions: 4,
        digits: [0, 1, 3, 4].map { DigitWiring.common($0, segments: 7, point: true) },
        colons: [ColonWiring(after: 2, bits: [RAMBit(com: 2, row: 1)])])

    /// Adafruit 1.2" 4-digit 7-segment backpack: digits as `seg7x4` but no decimal
    /// points; byte 4: 0x02 colon, 0x04 upper-left dot, 0x08 lower-left dot, 0x10 AM/PM dot
    /// (Adafruit `BigSeg7x4._setindicator`).
    public static let bigseg7x4 = LayoutKind(
        rawValue: "bigseg7x4", font: .sevenSegment, positions: 4,
        digits: [0, 1, 3, 4].map { DigitWiring.common($0, segments: 7, point: false) },
        colons: [ColonWiring(after: 2, bits: [RAMBit(com: 2, row: 1)])],
        indicatorWires: [2, 3, 4].map { RAMBit(com: 2, row: $0) })

    /// Adafruit quad alphanumeric (14-segment) backpack: digit n at bytes 2n (low) and
    /// 2n+1 (high), i.e. COMn; A...F = bits 0...5, G1 = 6, G2 = 7, H...N = 8...13, DP = 14.
    public static let seg14x4 = LayoutKind(
        rawValue: "seg14x4", font: .fourteenSegment, positions: 4,
        digits: (0..<4).map { DigitWiring.common($0, segments: 14, point: true) },
        colons: [])

    /// Adafruit 8x8 matrix backpack: pixel (x, y) in byte 2y, bit (x - 1) mod 8
    /// (the backpack is wired one column off; Adafruit `Matrix8x8.pixel`).
    public static let matrix8x8 = LayoutKind(rawValue: "matrix8x8", font: .matrix, positions: 2, colons: [])

    /// Adafruit 16x8 matrix backpack: pixel (x, y) in byte 2y + x/8, bit x mod 8
    /// (Adafruit `MatrixBackpack16x8.pixel`); a colon column between positions 2 and 3.
    public static let matrix16x8 = LayoutKind(rawValue: "matrix16x8", font: .matrix, positions: 4,
                                              colons: [ColonWiring(after: 2, bits: [])])
}
