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
    public init(bits: UInt8) {
        switch bits & 0x03 {
        case 1: self = .twoHertz
        case 2: self = .oneHertz
        case 3: self = .halfHertz
        default: self = .off
        }
    }
}

extension BlinkRate {
    /// One on/off period in milliseconds (0 when off).
    public var periodMilliseconds: Int {
        switch self {
        case .off: 0
        case .twoHertz: 500
        case .oneHertz: 1000
        case .halfHertz: 2000
        }
    }

    /// `off`, `2hz`, `1hz`, `0.5hz`: as written in the frames file.
    public var name: String {
        switch self {
        case .off: "off"
        case .twoHertz: "2hz"
        case .oneHertz: "1hz"
        case .halfHertz: "0.5hz"
        }
    }
}
