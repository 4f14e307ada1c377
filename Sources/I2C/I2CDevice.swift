/// One already-open I2C target (bus + 7-bit address), SMBus style. The driver only
/// uses these three transfers and never opens or closes anything; the owner of the
/// bus does. Implementations: the libi2c device in LinuxHardware,
/// `EmulatedHT16K33` (Simulation) and `PlaybackI2CDevice` (I2CPlayback).
public protocol I2CDevice {
    /// The bus, for messages, e.g. `"i2c-1"`.
    var name: String { get }
    /// The 7-bit target address, e.g. 0x70.
    var address: UInt8 { get }
    /// SMBus "send byte" (`i2c_smbus_write_byte`): one byte after the address.
    mutating func sendByte(_ byte: UInt8) throws(I2CError)
    /// SMBus "write I2C block data" (`i2c_smbus_write_i2c_block_data`): the
    /// register/command byte followed by `bytes` (at most 32).
    mutating func writeBlock(register: UInt8, _ bytes: [UInt8]) throws(I2CError)
    /// SMBus "read byte data" (`i2c_smbus_read_byte_data`): writes the register/command
    /// byte, then reads one byte after a repeated start. On an HT16K33 a register
    /// 0x00...0x0F is the display data address pointer, so this reads one display RAM
    /// byte (datasheet, "Display data RAM read"). A device that cannot read throws
    /// EOPNOTSUPP (the default); the driver then re-asserts settings instead.
    mutating func readByte(register: UInt8) throws(I2CError) -> UInt8
}

extension I2CDevice {
    /// Default: no reads on this device (EOPNOTSUPP), without any I/O.
    public mutating func readByte(register: UInt8) throws(I2CError) -> UInt8 {
        throw I2CError(self, .readByte(register: register), errno: Errno.EOPNOTSUPP)
    }
}
