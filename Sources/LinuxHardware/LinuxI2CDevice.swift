import CLinuxHardware
import HT16K33
import Hex
import I2C
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// One HT16K33 (or any SMBus target) on `/dev/i2c-N`: opened once, addressed with
/// `ioctl(I2C_SLAVE)`, written with SMBus send-byte and write-I2C-block and read with
/// read-byte-data (libi2c), the transfers that work on the Pi and on the kernel's
/// i2c-stub. The driver is handed this already open device and never opens or closes it.
/// An adapter without SMBus read-byte-data (ioctl I2C_FUNCS) makes `readByte` throw
/// EOPNOTSUPP without I/O; the driver then falls back to re-asserting settings.
public final class LinuxI2CDevice: I2CDevice, DisplayRAMReadback {
    public let name: String
    public let address: UInt8
    private let fd: Int32
    /// The adapter can do SMBus read byte data (I2C_FUNC_SMBUS_READ_BYTE_DATA).
    public let canReadBytes: Bool

    /// Opens `/dev/i2c-<bus>` and selects `address`.
    public init(bus: Int, address: UInt8) throws(SystemError) {
        let path = "/dev/i2c-\(bus)"
        name = "i2c-\(bus)"
        self.address = address
        let opened = retryingEINTR { rc_i2c_open(path) }
        guard opened.result >= 0 else { throw SystemError(device: path, operation: "open", errno: opened.errno) }
        let handle = opened.result
        fd = handle
        let selected = retryingEINTR { rc_i2c_select(handle, address) }
        guard selected.result >= 0 else {
            close(handle)
            throw SystemError(device: path, operation: "ioctl(I2C_SLAVE, 0x\(hex(address)))", errno: selected.errno)
        }
        canReadBytes = retryingEINTR { rc_i2c_can_read_byte_data(handle) }.result == 1
    }

    deinit { close(fd) }

    public func sendByte(_ byte: UInt8) throws(I2CError) {
        let r = retryingEINTR { rc_i2c_send_byte(fd, byte) }
        if r.result < 0 { throw I2CError(self, .sendByte(byte), errno: r.errno) }
    }

    public func writeBlock(register: UInt8, _ bytes: [UInt8]) throws(I2CError) {
        guard bytes.count <= 32 else { throw I2CError(self, .writeBlock(register: register, bytes: bytes), errno: EINVAL) }
        let r = bytes.withUnsafeBufferPointer { buffer in
            retryingEINTR { rc_i2c_write_block(fd, register, UInt8(buffer.count), buffer.baseAddress) }
        }
        if r.result < 0 { throw I2CError(self, .writeBlock(register: register, bytes: bytes), errno: r.errno) }
    }

    public func readByte(register: UInt8) throws(I2CError) -> UInt8 {
        guard canReadBytes else { throw I2CError(self, .readByte(register: register), errno: EOPNOTSUPP) }
        let r = retryingEINTR { rc_i2c_read_byte_data(fd, register) }
        if r.result < 0 { throw I2CError(self, .readByte(register: register), errno: r.errno) }
        return UInt8(truncatingIfNeeded: r.result)
    }

    /// Reads the 16 display RAM bytes back (SMBus read I2C block at 0x00).
    public func readDisplayRAM() throws(I2CError) -> [UInt8] {
        var ram = [UInt8](repeating: 0, count: 16)
        let r = ram.withUnsafeMutableBufferPointer { buffer in
            retryingEINTR { rc_i2c_read_block(fd, 0x00, 16, buffer.baseAddress) }
        }
        guard r.result == 16 else { throw I2CError(self, .readBlock(register: 0, count: 16), errno: r.result < 0 ? r.errno : EIO) }
        return ram
    }
}

/// I2C buses and the HT16K33 addresses answering on them (`roundclock probe`).
public enum I2CProbe {
    public static func buses() -> [Int] { deviceNodes(prefix: "i2c-").map(\.number) }

    /// Addresses in 0x70...0x77 (HT16K33) that answer a read of register 0x00.
    public static func answering(bus: Int, in range: ClosedRange<UInt8> = 0x70...0x77) throws(SystemError) -> [UInt8] {
        let path = "/dev/i2c-\(bus)"
        let opened = retryingEINTR { rc_i2c_open(path) }
        guard opened.result >= 0 else { throw SystemError(device: path, operation: "open", errno: opened.errno) }
        defer { close(opened.result) }
        return range.filter { address in
            retryingEINTR { rc_i2c_select(opened.result, address) }.result >= 0
                && retryingEINTR { rc_i2c_probe(opened.result) }.result >= 0
        }
    }
}
