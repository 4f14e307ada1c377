/// Everything that can go wrong turning text into a panel picture and back.
public enum SegmentDisplayError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The panel's font has no glyph for this character.
    case unsupportedCharacter(Character, LayoutKind)
    /// The text needs more positions than the panel has.
    case textTooLong(String, needed: Int, LayoutKind)
    /// A `:` where the layout has no colon (the 4-digit backpacks: between the 2nd and 3rd
    /// position), or twice in one place.
    case misplacedColon(String, LayoutKind)
    /// A `.` on a panel without decimal points.
    case noDecimalPoints(String, LayoutKind)
    /// Indicator dots on a panel that has none.
    case noIndicators(LayoutKind)
    /// A colon on a panel that has none.
    case noColon(LayoutKind)
    /// Display RAM must be exactly 16 bytes.
    case wrongRAMSize(Int)
    /// Display RAM holds a pattern the layout's encoder never produces.
    case undecodable(LayoutKind, detail: String)
    /// Text that is not 32 hexadecimal digits.
    case invalidHex(String)

    public var description: String {
        switch self {
        case let .unsupportedCharacter(character, kind):
            "\(kind) cannot show the character \(quoted(String(character)))"
        case let .textTooLong(text, needed, kind):
            "text \(quoted(text)) needs \(needed) positions but \(kind) has \(kind.positions)"
        case let .misplacedColon(text, kind):
            "text \(quoted(text)): on \(kind) a ':' must sit after position \(kind.colons.map { String($0.after) }.joined(separator: " or ")), once each (text is right-aligned)"
        case let .noDecimalPoints(text, kind):
            "text \(quoted(text)): \(kind) has no decimal points"
        case let .noIndicators(kind):
            "\(kind) has no indicator dots"
        case let .noColon(kind):
            "\(kind) has no colon"
        case let .wrongRAMSize(count):
            "display RAM must be 16 bytes, got \(count)"
        case let .undecodable(kind, detail):
            "\(kind) RAM cannot be decoded: \(detail)"
        case let .invalidHex(text):
            "expected 32 hexadecimal digits, got \(quoted(text))"
        }
    }
}

func quoted(_ text: String) -> String {
    "\"" + text + "\""
}
