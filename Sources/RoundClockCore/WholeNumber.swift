/// Whole numbers as users write them, the one number grammar of every parser here:
/// one or more ASCII digits `0`–`9` and nothing else. Unlike `Int("+5")` it takes no
/// sign, and it takes no space, `_`, or non-ASCII digit; unlike `Int(...)` on a long
/// string it cannot overflow: it stops as soon as the value passes `limit`.
public enum WholeNumber {
    /// The value of `text` if it is all ASCII digits and at most `limit` (≥ 0); else `nil`.
    public static func parse(_ text: some StringProtocol, atMost limit: Int64) -> Int64? {
        guard !text.isEmpty, limit >= 0 else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard let digit = digitValue(byte), value <= limit / 10 else { return nil }
            value *= 10
            guard value <= limit - digit else { return nil }
            value += digit
        }
        return value
    }

    /// Whether `text` is one or more ASCII digits (whatever its value).
    public static func isDigits(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { digitValue($0) != nil }
    }

    private static func digitValue(_ byte: UInt8) -> Int64? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int64(byte - UInt8(ascii: "0")) : nil
    }
}
