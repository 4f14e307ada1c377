/// The HT16K33 backpacks RoundClock can drive, named as in board files and on the
/// command line (`seg7x4`, `bigseg7x4`, `seg14x4`, `matrix8x8`, `matrix16x8`).
public enum LayoutKind: String, CaseIterable, Sendable, LosslessStringConvertible {
    /// Adafruit 0.56" 4-digit 7-segment backpack: digits at RAM bytes 0, 2, 6, 8,
    /// bits 0...6 = A...G, bit 7 = DP; colon = byte 4 bit 0x02.
    case seg7x4
    /// Adafruit 1.2" 4-digit 7-segment backpack: digits as `seg7x4` but no decimal
    /// points; byte 4: 0x02 colon, 0x04 upper-left dot, 0x08 lower-left dot,
    /// 0x10 AM/PM dot.
    case bigseg7x4
    /// Adafruit quad alphanumeric (14-segment) backpack: digit n at bytes 2n (low)
    /// and 2n+1 (high); A...F = bits 0...5, G1 = 6, G2 = 7, H...N = 8...13, DP = 14.
    case seg14x4
    /// Adafruit 8x8 matrix backpack: pixel (x, y) in byte 2y, bit (x - 1) mod 8
    /// (the backpack is wired one column off; Adafruit `Matrix8x8.pixel`).
    case matrix8x8
    /// Adafruit 16x8 matrix backpack: pixel (x, y) in byte 2y + x/8, bit x mod 8
    /// (Adafruit `MatrixBackpack16x8.pixel`).
    case matrix16x8

    /// Parses the exact kind name, e.g. `"seg7x4"`.
    public init?(_ description: String) {
        self.init(rawValue: description)
    }

    public var description: String { rawValue }

    /// Number of character positions on the panel.
    public var positions: Int {
        switch self {
        case .seg7x4, .bigseg7x4, .seg14x4, .matrix16x8: 4
        case .matrix8x8: 2
        }
    }

    /// Whether the panel has a centre colon. It sits between the 2nd and 3rd
    /// position (`colonAfterPosition`). On `seg14x4`, `:` is an ordinary glyph.
    public var hasColon: Bool {
        switch self {
        case .seg7x4, .bigseg7x4, .matrix16x8: true
        case .seg14x4, .matrix8x8: false
        }
    }

    /// Number of positions left of the colon.
    public var colonAfterPosition: Int { 2 }

    /// Whether each position has a decimal point (`.` in text).
    public var hasDecimalPoints: Bool {
        switch self {
        case .seg7x4, .seg14x4: true
        case .bigseg7x4, .matrix8x8, .matrix16x8: false
        }
    }

    /// Whether the panel has the extra indicator dots of the 1.2" backpack.
    public var hasIndicators: Bool { self == .bigseg7x4 }

    /// Whether the panel is an LED matrix (drawn with `MatrixFont`).
    public var isMatrix: Bool { self == .matrix8x8 || self == .matrix16x8 }
}
