import Hex

/// Why a text is not one JSON value within the limits: what is wrong and the byte offset
/// (counted from 0) where it was found. One line.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Offset of the offending byte in the input.
    public var offset: Int
    public var message: String

    public init(at offset: Int, _ message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "at byte \(offset): \(message)" }

    /// A byte as an error names it: `'x'` for printable ASCII, else `byte 0xNN`.
    static func name(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(byte, digits: 2))"
    }
}
