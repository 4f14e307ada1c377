/// One transfer on the bus, as named in errors and scripted in playback tests.
public enum I2COperation: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// SMBus send byte.
    case sendByte(UInt8)
    /// SMBus write I2C block data at `register`.
    case writeBlock(register: UInt8, bytes: [UInt8])
    /// SMBus read I2C block data of `count` bytes at `register` (display RAM read-back).
    case readBlock(register: UInt8, count: Int)
    /// SMBus read byte data at `register` (the power-loss check: one display RAM byte).
    case readByte(register: UInt8)

    public var description: String {
        switch self {
        case let .sendByte(byte):
            "send byte \(hex(byte))"
        case let .writeBlock(register, bytes):
            "write block @\(hex(register)) [\(bytes.map(hex).joined(separator: " "))]"
        case let .readBlock(register, count):
            "read block @\(hex(register)) (\(count) bytes)"
        case let .readByte(register):
            "read byte @\(hex(register))"
        }
    }

    /// Short form without the data, used in error messages.
    public var summary: String {
        switch self {
        case let .sendByte(byte): "send byte \(hex(byte))"
        case let .writeBlock(register, bytes): "write block @\(hex(register)) (\(bytes.count) bytes)"
        case let .readBlock(register, count): "read block @\(hex(register)) (\(count) bytes)"
        case .readByte: description
        }
    }
}

/// `0x2a`-style formatting without Foundation. Package-wide: `PowerCheck` (HT16K33)
/// formats its register and bytes the same way.
package func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
}
