/// The card's text as editors on Windows and macOS write it: a UTF-8 byte order mark, CRLF or
/// CR line ends. `normalized` gives the text the checker and the clock read (no mark, LF).
public enum CardText {
    /// The text without a leading byte order mark and with every CRLF or lone CR made LF;
    /// `nil` if the bytes are not UTF-8.
    public static func normalized(_ bytes: [UInt8]) -> String? {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var previousCR = false
        for byte in body {
            if byte == 0x0D {
                out.append(0x0A)
                previousCR = true
                continue
            }
            if byte == 0x0A, previousCR {
                previousCR = false
                continue
            }
            previousCR = false
            out.append(byte)
        }
        return String(validating: out, as: UTF8.self)
    }

    /// What stands in place of the passphrase once it is applied.
    public static let removedPassphrase = "# passphrase: applied to the clock and removed from this card"

    /// `text` with the `passphrase = …` line of its `[wifi]` table (or a top-level
    /// `wifi.passphrase = …`) replaced by `removedPassphrase`, keeping its indentation;
    /// `nil` if there is no such line.
    public static func withoutPassphrase(_ text: String) -> String? {
        var table = ""
        var removed = false
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") {
                table = header(trimmed) ?? ""
                return String(line)
            }
            guard let key = assignedKey(trimmed) else { return String(line) }
            let full = table.isEmpty ? key : "\(table).\(key)"
            guard full == "wifi.passphrase" else { return String(line) }
            removed = true
            return String(line.prefix { $0 == " " || $0 == "\t" }) + removedPassphrase
        }
        return removed ? lines.joined(separator: "\n") : nil
    }

    /// Whether the text sets `key` at the top level (before its first table).
    public static func setsTopLevelKey(_ key: String, in text: String) -> Bool {
        for line in text.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") { return false }
            if assignedKey(trimmed) == key { return true }
        }
        return false
    }

    /// `wifi` from `[wifi]` or `[ wifi ] # comment`; `nil` for an array of tables or a quoted name.
    private static func header(_ line: Substring) -> String? {
        guard !line.hasPrefix("[["), let close = line.firstIndex(of: "]") else { return nil }
        return spacesRemoved(line[line.index(after: line.startIndex)..<close])
    }

    /// The bare, possibly dotted key a `key = value` line assigns, spaces around dots removed.
    private static func assignedKey(_ line: Substring) -> String? {
        guard let equals = line.firstIndex(of: "="), !line.hasPrefix("#") else { return nil }
        let key = spacesRemoved(line[..<equals])
        let bare = !key.isEmpty && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }
        return bare ? key : nil
    }

    private static func spacesRemoved(_ text: Substring) -> String {
        String(text.filter { $0 != " " && $0 != "\t" })
    }
}
