/// The extra dots of the 1.2" 7-segment backpack (`bigseg7x4`), as bits of
/// display RAM byte 4 (Adafruit `BigSeg7x4._setindicator`: bit = 1 << (index + 1)).
public struct Indicators: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Byte 4 bit 0x04: upper-left dot.
    public static let upperLeft = Indicators(rawValue: 0x04)
    /// Byte 4 bit 0x08: lower-left dot.
    public static let lowerLeft = Indicators(rawValue: 0x08)
    /// Byte 4 bit 0x10: AM/PM dot (right).
    public static let ampm = Indicators(rawValue: 0x10)

    /// All indicator bits.
    public static let all: Indicators = [.upperLeft, .lowerLeft, .ampm]
}

extension Indicators {
    /// The dots in the order of `LayoutKind.indicatorWires`.
    static let ordered: [Indicators] = [.upperLeft, .lowerLeft, .ampm]
}
