/// The document grammar ("Spec" of TOML 1.0.0): statements, headers, keys, whitespace and
/// comments. Values, strings, numbers and dates are in the extensions.
struct Parser {
    let bytes: [UInt8]
    var pos = 0
    private let root = TableNode(.header)
    /// The offset of each line feed, for the line a key is on.
    private let lineFeeds: [Int]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        lineFeeds = bytes.indices.filter { bytes[$0] == .lf }
    }

    mutating func document() throws(TOMLError) -> TOMLTable {
        if let error = TOMLError.invalidUTF8(in: bytes) { throw error }
        var section = root
        var sectionDepth = 0
        while true {
            skipWhitespace()
            guard let byte = peek() else { break }
            let statement: String
            if byte == .lf || (byte == .cr && peek(1) == .lf) {
                pos += byte == .lf ? 1 : 2
                continue
            } else if byte == .hash {
                statement = "the comment"
            } else if byte == .openBracket {
                (section, sectionDepth) = try header()
                statement = "the table header"
            } else if isBareKeyByte(byte) || byte == .quote || byte == .apostrophe {
                try keyValue(in: section, depth: sectionDepth)
                statement = "the value"
            } else {
                throw fail("expected a key, a [table] header or a comment, found \(found())")
            }
            try endOfLine(after: statement)
        }
        return root.freeze()
    }

    // MARK: Headers and key/value pairs

    /// `[a.b]` or `[[a.b]]`: the table the next key/value pairs go to, and its depth.
    private mutating func header() throws(TOMLError) -> (TableNode, Int) {
        let isArray = peek(1) == .openBracket
        pos += isArray ? 2 : 1
        skipWhitespace()
        let keyStart = pos
        let path = try key()
        guard path.count <= TOML.maximumDepth else { throw fail("the header nests deeper than \(TOML.maximumDepth) levels", at: keyStart) }
        if isArray {
            guard peek() == .closeBracket, peek(1) == .closeBracket else {
                throw fail("expected ']]' to close the array-of-tables header [[\(render(path))]], found \(found())")
            }
            pos += 2
        } else {
            guard peek() == .closeBracket else { throw fail("expected ']' to close the table header [\(render(path))], found \(found())") }
            pos += 1
        }
        do {
            let headerLine = line(at: keyStart)
            return (isArray ? try root.appendTable(path, line: headerLine) : try root.defineTable(path, line: headerLine), path.count)
        } catch {
            throw fail(error.message, at: keyStart)
        }
    }

    /// `key = value` into `table`, whose own depth is `depth`.
    mutating func keyValue(in table: TableNode, depth: Int) throws(TOMLError) {
        let keyStart = pos
        let path = try key()
        guard peek() == .equals else { throw fail("expected '=' after the key \(render(path)), found \(found())") }
        pos += 1
        skipWhitespace()
        let valueDepth = depth + path.count
        guard valueDepth <= TOML.maximumDepth else { throw fail("the key nests deeper than \(TOML.maximumDepth) levels", at: keyStart) }
        let value = try value(depth: valueDepth)
        do {
            try table.insert(path, value, line: line(at: keyStart))
        } catch {
            throw fail(error.message, at: keyStart)
        }
    }

    /// A bare, quoted or dotted key; whitespace around the dots is allowed.
    private mutating func key() throws(TOMLError) -> [String] {
        var parts = [try keyPart()]
        skipWhitespace()
        while peek() == .dot {
            pos += 1
            skipWhitespace()
            parts.append(try keyPart())
            skipWhitespace()
        }
        return parts
    }

    private mutating func keyPart() throws(TOMLError) -> String {
        if peek() == .quote { return try basicString() }
        if peek() == .apostrophe { return try literalString() }
        let start = pos
        while let b = peek(), isBareKeyByte(b) { pos += 1 }
        guard pos > start else {
            throw fail("expected a key (letters, digits, '-' and '_', or a quoted key), found \(found())")
        }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }

    // MARK: Whitespace, comments, line ends

    mutating func skipWhitespace() {
        while let byte = peek(), byte == .space || byte == .tab { pos += 1 }
    }

    /// Inside arrays: spaces, tabs, newlines and comments.
    mutating func skipWhitespaceNewlinesAndComments() throws(TOMLError) {
        while true {
            skipWhitespace()
            if peek() == .lf {
                pos += 1
            } else if peek() == .cr, peek(1) == .lf {
                pos += 2
            } else if peek() == .hash {
                try skipComment()
            } else {
                return
            }
        }
    }

    /// `# ...` up to the line end; control characters other than tab are not allowed.
    private mutating func skipComment() throws(TOMLError) {
        guard peek() == .hash else { return }
        pos += 1
        while let byte = peek(), byte != .lf {
            if byte == .cr, peek(1) == .lf { return }
            if (byte < 0x20 && byte != .tab) || byte == 0x7F {
                throw fail("\(found()) is not allowed in a comment")
            }
            pos += 1
        }
    }

    /// After a statement: optional whitespace and comment, then a newline or the end.
    private mutating func endOfLine(after statement: String) throws(TOMLError) {
        skipWhitespace()
        try skipComment()
        switch peek() {
        case nil: return
        case .lf: pos += 1
        case .cr where peek(1) == .lf: pos += 2
        default: throw fail("expected the end of the line after \(statement), found \(found())")
        }
    }

    // MARK: Cursor

    func peek(_ offset: Int = 0) -> UInt8? {
        let index = pos + offset
        return index < bytes.count ? bytes[index] : nil
    }

    func hasPrefix(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard pos + count <= bytes.count else { return false }
        return text.withUTF8Buffer { prefix in prefix.elementsEqual(bytes[pos..<pos + count]) }
    }

    /// The 1-based line holding byte `offset`: one more than the line feeds before it.
    func line(at offset: Int) -> Int {
        var low = 0
        var high = lineFeeds.count
        while low < high {
            let middle = (low + high) / 2
            if lineFeeds[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low + 1
    }

    func fail(_ message: String, at offset: Int? = nil) -> TOMLError {
        TOMLError(at: offset ?? pos, in: bytes, message)
    }

    /// The character at the cursor, as an error names it.
    func found() -> String {
        guard pos < bytes.count else { return "the end of the file" }
        return quoted(scalar(at: pos))
    }

    /// The text from `start` up to the next separator, quoted and escaped.
    func found(from start: Int) -> String {
        var end = start
        while end < bytes.count, end - start < 40, ![.space, .tab, .lf, .cr, .comma, .closeBracket, .closeBrace, .hash].contains(bytes[end]) { end += 1 }
        return escapedBasicString(String(decoding: bytes[start..<end], as: UTF8.self))
    }

    func scalar(at index: Int) -> Unicode.Scalar {
        var iterator = bytes[index...].makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
        return "\u{FFFD}"
    }
}

/// The offset of the first byte that does not belong to a well-formed UTF-8 sequence
/// (Unicode 15, table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var offset = 0
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar): offset += UTF8.width(scalar)
        case .emptyInput: return nil
        case .error: return offset
        }
    }
}

extension UInt8 {
    static let tab = UInt8(ascii: "\t"), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r"), space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), backslash = UInt8(ascii: "\\"), hash = UInt8(ascii: "#")
    static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]"), openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    static let equals = UInt8(ascii: "="), dot = UInt8(ascii: "."), comma = UInt8(ascii: ","), colon = UInt8(ascii: ":")
    static let plus = UInt8(ascii: "+"), minus = UInt8(ascii: "-"), underscore = UInt8(ascii: "_")
}
