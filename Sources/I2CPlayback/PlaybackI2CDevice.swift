import Hex
import I2C

/// A scripted `I2CDevice` for byte-exact tests, after periph.io's
/// `conn/i2c/i2ctest.Playback`: it is given the exact list of transfers to expect
/// and fails on anything unexpected. A scripted step can also fail with an errno, and
/// a scripted read answers with its scripted byte.
///
/// Any transfer that does not match the next step is recorded and answered with
/// EPROTO (the step is not consumed); `finish()` then reports all mismatches and
/// leftover steps. A class, so a test keeps a handle while a driver owns a copy.
public final class PlaybackI2CDevice: I2CDevice {
    /// One expected transfer and its scripted outcome.
    public struct Step: Equatable, Sendable, CustomStringConvertible {
        public var operation: I2COperation
        /// nil: succeed; otherwise fail with this errno (after matching).
        public var errno: Int32?
        /// For a read: the byte the device answers.
        public var reply: UInt8

        public init(_ operation: I2COperation, errno: Int32? = nil, reply: UInt8 = 0) {
            self.operation = operation
            self.errno = errno
            self.reply = reply
        }

        /// Expect SMBus send byte `byte`.
        public static func send(_ byte: UInt8, failing errno: Int32? = nil) -> Step {
            Step(.sendByte(byte), errno: errno)
        }

        /// Expect SMBus block write at `register` with exactly `bytes`.
        public static func block(_ register: UInt8, _ bytes: [UInt8], failing errno: Int32? = nil) -> Step {
            Step(.writeBlock(register: register, bytes: bytes), errno: errno)
        }

        /// Expect SMBus read byte data at `register`, answering `value`.
        public static func read(_ register: UInt8, replying value: UInt8, failing errno: Int32? = nil) -> Step {
            Step(.readByte(register: register), errno: errno, reply: value)
        }

        public var description: String {
            if let errno { return "\(operation) -> errno \(errno)" }
            if case .readByte = operation { return "\(operation) -> 0x" + hex(reply, digits: 2) }
            return operation.description
        }
    }

    public let name: String
    public let address: UInt8
    /// Steps not yet performed.
    public private(set) var remaining: [Step]
    /// Transfers that matched, in order.
    public private(set) var performed: [I2COperation] = []
    /// Transfers that did not match the script.
    public private(set) var mismatches: [String] = []

    public init(name: String = "playback", address: UInt8 = 0x70, _ steps: [Step]) {
        self.name = name
        self.address = address
        remaining = steps
    }

    /// Appends more expected steps.
    public func expect(_ steps: [Step]) {
        remaining += steps
    }

    public func sendByte(_ byte: UInt8) throws(I2CError) {
        try play(.sendByte(byte))
    }

    public func writeBlock(register: UInt8, _ bytes: [UInt8]) throws(I2CError) {
        try play(.writeBlock(register: register, bytes: bytes))
    }

    public func readByte(register: UInt8) throws(I2CError) -> UInt8 {
        try play(.readByte(register: register))
    }

    @discardableResult
    private func play(_ operation: I2COperation) throws(I2CError) -> UInt8 {
        guard let step = remaining.first, step.operation == operation else {
            let expected = remaining.first.map(\.description) ?? "nothing"
            mismatches.append("unexpected \(operation); expected \(expected)")
            throw I2CError(self, operation, errno: Errno.EPROTO)
        }
        remaining.removeFirst()
        performed.append(operation)
        if let errno = step.errno {
            throw I2CError(self, operation, errno: errno)
        }
        return step.reply
    }

    /// Throws if any transfer was unexpected or any scripted step is left over.
    public func finish() throws(PlaybackError) {
        guard mismatches.isEmpty && remaining.isEmpty else {
            throw PlaybackError(mismatches: mismatches, leftovers: remaining.map(\.description))
        }
    }
}

/// What `PlaybackI2CDevice.finish()` found wrong.
public struct PlaybackError: Error, Equatable, Sendable, CustomStringConvertible {
    public var mismatches: [String]
    public var leftovers: [String]

    public var description: String {
        var parts: [String] = []
        if !mismatches.isEmpty { parts.append("unexpected: " + mismatches.joined(separator: "; ")) }
        if !leftovers.isEmpty { parts.append("missing: " + leftovers.joined(separator: "; ")) }
        return "playback: " + parts.joined(separator: " | ")
    }
}
