import Hex

/// Numbers (RFC 8259 §6) and strings (§7).
extension Reader {
    mutating func digits() -> Int {
        let from = at
        while let b = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { at += 1 }
        return at - from
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func number() throws(JSONError) -> JSONValue {
        let from = at
        if peek == UInt8(ascii: "-") { at += 1 }
        let intAt = at
        let intDigits = digits()
        guard intDigits > 0 else { throw fail("expected a digit, found \(found)") }
        guard intDigits == 1 || bytes[intAt] != UInt8(ascii: "0") else { throw JSONError(at: intAt, "leading zero in a number") }
        if peek == UInt8(ascii: ".") {
            at += 1
            guard digits() > 0 else { throw fail("expected a digit after '.', found \(found)") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            at += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw fail("expected a digit in the exponent, found \(found)") }
        }
        return .number(String(decoding: bytes[from..<at], as: UTF8.self))
    }

    /// A string at the cursor (on its opening quotation mark).
    mutating func string() throws(JSONError) -> String {
        at += 1
        var out: [UInt8] = []
        while true {
            guard let b = peek else { throw fail("unterminated string") }
            switch b {
            case UInt8(ascii: "\""):
                at += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                at += 1
                try escape(into: &out)
            case 0x00..<0x20:
                throw fail("control character U+\(hex(b, digits: 4, uppercase: true)) in a string (escape it)")
            default:
                out.append(b)
                at += 1
            }
        }
    }

    /// One escape, after its reverse solidus.
    mutating func escape(into out: inout [UInt8]) throws(JSONError) {
        guard let b = peek else { throw fail("unterminated string") }
        let simple: UInt8?
        switch b {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default: throw fail("invalid escape \\\(JSONError.name(b))")
        }
        at += 1
        if let simple { out.append(simple); return }
        let escapeAt = at - 2
        let unit = try hex4()
        let scalarValue: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            guard peek == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else {
                throw JSONError(at: escapeAt, "high surrogate \\u\(String(unit, radix: 16)) without a low one")
            }
            at += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw JSONError(at: escapeAt, "high surrogate \\u\(String(unit, radix: 16)) without a low one")
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        case 0xDC00...0xDFFF:
            throw JSONError(at: escapeAt, "low surrogate \\u\(String(unit, radix: 16)) without a high one")
        default:
            scalarValue = UInt32(unit)
        }
        // In range by construction: not a surrogate, at most U+10FFFF.
        guard let scalar = Unicode.Scalar(scalarValue) else { throw JSONError(at: escapeAt, "not a Unicode scalar") }
        UTF8.encode(scalar) { out.append($0) }
    }

    /// Four hexadecimal digits of a `\u` escape.
    mutating func hex4() throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let b = peek else { throw fail("unterminated \\u escape") }
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw fail("expected a hex digit in \\u escape, found \(found)")
            }
            value = value << 4 | UInt16(digit)
            at += 1
        }
        return value
    }
}
