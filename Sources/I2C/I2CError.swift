import Hex

/// A failed I2C transfer: which bus and address, what was attempted, and the errno.
/// Description: `i2c-1 0x70: write block @0x00 (16 bytes) failed: EIO (5)`.
public struct I2CError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Bus name, e.g. `"i2c-1"`.
    public var device: String
    /// 7-bit target address.
    public var address: UInt8
    /// The transfer that failed.
    public var operation: I2COperation
    /// The errno the transfer failed with.
    public var errno: Int32

    public init(device: String, address: UInt8, operation: I2COperation, errno: Int32) {
        self.device = device
        self.address = address
        self.operation = operation
        self.errno = errno
    }

    /// Convenience for device implementations: fills in the device's name and address.
    public init(_ device: some I2CDevice, _ operation: I2COperation, errno: Int32) {
        self.init(device: device.name, address: device.address, operation: operation, errno: errno)
    }

    public var description: String {
        "\(device) 0x\(hex(address, digits: 2)): \(operation.summary) failed: \(Errno.name(errno)) (\(errno))"
    }
}
