import Hex

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
            "send byte 0x\(hex(byte, digits: 2))"
        case let .writeBlock(register, bytes):
            "write block @0x\(hex(register, digits: 2)) [\(bytes.map { "0x" + hex($0, digits: 2) }.joined(separator: " "))]"
        case let .readBlock(register, count):
            "read block @0x\(hex(register, digits: 2)) (\(count) bytes)"
        case let .readByte(register):
            "read byte @0x\(hex(register, digits: 2))"
        }
    }

    /// Short form without the data, used in error messages.
    public var summary: String {
        switch self {
        case let .sendByte(byte): "send byte 0x\(hex(byte, digits: 2))"
        case let .writeBlock(register, bytes): "write block @0x\(hex(register, digits: 2)) (\(bytes.count) bytes)"
        case let .readBlock(register, count): "read block @0x\(hex(register, digits: 2)) (\(count) bytes)"
        case .readByte: description
        }
    }
}

