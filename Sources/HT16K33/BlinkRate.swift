/// Blink field B1 B0 of the display setup command (HT16K33 datasheet,
/// "Display setup register"; command 0x80 | D | B1 B0 << 1).
public enum BlinkRate: UInt8, CaseIterable, Sendable {
    /// 00: blinking off.
    case off = 0
    /// 01: 2 Hz.
    case twoHertz = 1
    /// 10: 1 Hz.
    case oneHertz = 2
    /// 11: 0.5 Hz.
    case halfHertz = 3

    /// From the two-bit B1 B0 field; higher bits are ignored (`bits & 0x03`).
    /// Lets callers map `SegmentDisplay.Blink` without force-unwrapping:
    /// `BlinkRate(bits: frame.blink.rawValue)`.
    public init(bits: UInt8) {
        switch bits & 0x03 {
        case 1: self = .twoHertz
        case 2: self = .oneHertz
        case 3: self = .halfHertz
        default: self = .off
        }
    }
}
