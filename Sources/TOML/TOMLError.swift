import Hex

/// A document that is not valid TOML: where (1-based line, and column counted in
/// characters) and why, in one line (characters quoted from the input are escaped).
public struct TOMLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "line \(line), column \(column): \(message)" }

    /// Where `bytes` stop being UTF-8, or `nil` if they are UTF-8 text.
    public static func invalidUTF8(in bytes: [UInt8]) -> TOMLError? {
        guard let offset = firstInvalidUTF8(bytes) else { return nil }
        return TOMLError(at: offset, in: bytes, "not UTF-8 text: byte 0x\(hex(bytes[offset], digits: 2, uppercase: true)) does not start a valid UTF-8 sequence")
    }

    /// The error at byte `offset` of `bytes`: lines end at LF; columns count Unicode
    /// scalars (UTF-8 lead bytes), so a tab or an `é` is one column.
    init(at offset: Int, in bytes: [UInt8], _ message: String) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.init(line: line, column: column, message: message)
    }
}

/// How a character of the input is named in an error: printable ones in quotes,
/// the others by code point, so an error message never holds a control character.
func quoted(_ scalar: Unicode.Scalar) -> String {
    switch scalar {
    case "\n": return "a newline"
    case "\r": return "a carriage return (CR without LF)"
    case "\t": return "a tab"
    case "\u{0}": return "a NUL byte (U+0000)"
    default:
        if isControl(scalar) || scalar == "\u{FEFF}" {
            return "U+" + hex(scalar.value, digits: 4, uppercase: true)
        }
        return "'\(Character(scalar))'"
    }
}
