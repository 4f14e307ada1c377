import I2C

/// A scripted failure of an `EmulatedHT16K33` transfer.
public struct Fault: Sendable, Equatable {
    /// Which transfers the fault applies to.
    public enum Match: Sendable, Equatable {
        /// Any transfer.
        case any
        /// Any SMBus send byte.
        case sendByte
        /// SMBus send byte of exactly this command.
        case command(UInt8)
        /// Any block write.
        case writeBlock
        /// Any read (SMBus read byte data).
        case read
    }

    public var match: Match
    /// errno the transfer fails with, e.g. `Errno.ENXIO` (NACK) or `Errno.EIO`.
    public var errno: Int32
    /// How many matching transfers fail.
    public var count: Int
    /// For block writes: how many data bytes reach RAM before the failure.
    public var partialBytes: Int

    public init(match: Match = .any, errno: Int32 = Errno.EIO, count: Int = 1, partialBytes: Int = 0) {
        self.match = match
        self.errno = errno
        self.count = count
        self.partialBytes = partialBytes
    }

    func matches(_ operation: I2COperation) -> Bool {
        switch (match, operation) {
        case (.any, _), (.sendByte, .sendByte), (.writeBlock, .writeBlock), (.read, .readByte), (.read, .readBlock): true
        case let (.command(expected), .sendByte(byte)): expected == byte
        default: false
        }
    }
}
