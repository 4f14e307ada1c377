import Hex

/// Basic, literal and multi-line strings ("String" section of the spec). Newlines in
/// multi-line strings are read as LF, CRLF included (the spec allows normalising them).
extension Parser {
    /// `"..."`: escapes, no newline, no control character other than tab.
    mutating func basicString() throws(TOMLError) -> String {
        let start = pos
        pos += 1
        var out: [UInt8] = []
        while true {
            guard let byte = peek() else { throw fail("unterminated string: the end of the file came before the closing '\"'", at: start) }
            switch byte {
            case .quote:
                pos += 1
                return String(decoding: out, as: UTF8.self)
            case .backslash:
                try escape(into: &out, multiline: false)
            case _ where byte == .lf || (byte == .cr && peek(1) == .lf):
                throw fail("unterminated string: the line ends before the closing '\"' (use \"\"\" for a multi-line string)")
            default:
                try checkStringByte(byte)
                out.append(byte)
                pos += 1
            }
        }
    }

    /// `"""..."""` (with escapes) or `'''...'''` (without), by `quote`: a newline right after
    /// the opening quotes is dropped; up to two quotes may stand before the closing ones.
    mutating func multilineString(_ quote: UInt8) throws(TOMLError) -> String {
        let start = pos
        let delimiter = quote == .quote ? "\"\"\"" : "'''"
        pos += 3
        skipNewline()
        var out: [UInt8] = []
        while true {
            guard let byte = peek() else { throw fail("unterminated string: the end of the file came before the closing \(delimiter)", at: start) }
            if byte == quote, peek(1) == quote, peek(2) == quote {
                pos += 3
                closingQuotes(quote, into: &out)
                return String(decoding: out, as: UTF8.self)
            }
            if byte == .backslash, quote == .quote {
                try escape(into: &out, multiline: true)
            } else if skipNewline() {
                out.append(.lf)
            } else {
                try checkStringByte(byte)
                out.append(byte)
                pos += 1
            }
        }
    }

    /// `'...'`: no escapes, no newline, no control character other than tab.
    mutating func literalString() throws(TOMLError) -> String {
        let start = pos
        pos += 1
        let contentStart = pos
        while true {
            guard let byte = peek() else { throw fail("unterminated string: the end of the file came before the closing \"'\"", at: start) }
            if byte == .apostrophe {
                pos += 1
                return String(decoding: bytes[contentStart..<pos - 1], as: UTF8.self)
            }
            if byte == .lf || (byte == .cr && peek(1) == .lf) {
                throw fail("unterminated string: the line ends before the closing \"'\" (use ''' for a multi-line string)")
            }
            try checkStringByte(byte)
            pos += 1
        }
    }

    /// Control characters other than tab must be escaped (U+0000–U+0008, U+000A–U+001F, U+007F).
    private func checkStringByte(_ byte: UInt8) throws(TOMLError) {
        if (byte < 0x20 && byte != .tab) || byte == 0x7F {
            throw fail("\(found()) is not allowed in a string; write it as an escape such as \\n, \\t or \\u0000")
        }
    }

    /// LF or CRLF at the cursor: skipped, `true`.
    @discardableResult
    private mutating func skipNewline() -> Bool {
        if peek() == .lf {
            pos += 1
            return true
        }
        if peek() == .cr, peek(1) == .lf {
            pos += 2
            return true
        }
        return false
    }

    /// After the closing delimiter, one or two more quotes belong to the content.
    private mutating func closingQuotes(_ quote: UInt8, into out: inout [UInt8]) {
        for _ in 0..<2 where peek() == quote {
            out.append(quote)
            pos += 1
        }
    }

    /// `\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX`, and in multi-line strings the
    /// line-ending backslash, which drops the newline and the whitespace after it.
    private mutating func escape(into out: inout [UInt8], multiline: Bool) throws(TOMLError) {
        let start = pos
        pos += 1
        guard let byte = peek() else { throw fail("unterminated string: the end of the file came after '\\'") }
        pos += 1
        switch byte {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(.tab)
        case UInt8(ascii: "n"): out.append(.lf)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(.cr)
        case .quote, .backslash: out.append(byte)
        case UInt8(ascii: "u"): try unicodeEscape(digits: 4, start: start, into: &out)
        case UInt8(ascii: "U"): try unicodeEscape(digits: 8, start: start, into: &out)
        case .space, .tab, .lf, .cr:
            pos -= 1
            guard multiline else { throw unknownEscape(start) }
            skipWhitespace()
            guard skipNewline() else {
                throw fail("a '\\' at the end of a line may be followed only by spaces; found \(found()) (write \\\\ for a backslash)", at: start)
            }
            while skipNewline() || peek() == .space || peek() == .tab {
                skipWhitespace()
            }
        default:
            pos -= 1
            throw unknownEscape(start)
        }
    }

    private func unknownEscape(_ start: Int) -> TOMLError {
        fail("unknown escape '\\' followed by \(found()); use \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX or \\UXXXXXXXX (\\\\ for a backslash)", at: start)
    }

    private mutating func unicodeEscape(digits: Int, start: Int, into out: inout [UInt8]) throws(TOMLError) {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let byte = peek(), let digit = hexDigitValue(byte) else {
                throw fail("\\\(digits == 4 ? "u" : "U") needs exactly \(digits) hexadecimal digits, found \(found())")
            }
            value = value << 4 | UInt32(digit)
            pos += 1
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw fail("\\\(digits == 4 ? "u" : "U")\(hex(value, digits: digits, uppercase: true)) is not a Unicode scalar value (surrogates and values above 10FFFF are not)", at: start)
        }
        UTF8.encode(scalar) { out.append($0) }
    }
}

func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
