/// A strict RFC 8259 reader for one JSON text, bounded: at most `maxBytes` bytes, arrays
/// and objects nested at most `maxDepth` deep. Strict means: UTF-8 only (§8.1), one value
/// with only space, tab, CR and LF around it (§2), no trailing commas, no comments, numbers
/// by §6's grammar (no leading zeros, no `+`, no `.5`, no NaN), strings without raw control
/// characters and with only §7's escapes, `\u` surrogates only in pairs, and an object's
/// keys unique (§4 says SHOULD; a request with two `"command"`s is refused, not guessed).
public struct JSONParser: Sendable {
    public var maxBytes: Int
    public var maxDepth: Int

    public init(maxBytes: Int = 4096, maxDepth: Int = 16) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    /// Parses `bytes` as one JSON value; the error names the first thing wrong.
    public func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        guard bytes.count <= maxBytes else { throw JSONError(at: maxBytes, "longer than \(maxBytes) bytes") }
        if let bad = UTF8Check.firstInvalid(bytes) { throw JSONError(at: bad, "not UTF-8 (\(JSONError.name(bytes[bad])))") }
        var reader = Reader(bytes: bytes, maxDepth: maxDepth)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == bytes.count else {
            throw JSONError(at: reader.at, "\(JSONError.name(bytes[reader.at])) after the value")
        }
        return value
    }

    /// Parses the UTF-8 of `text`.
    public func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

/// The cursor over the input (already checked to be UTF-8).
struct Reader {
    let bytes: [UInt8]
    let maxDepth: Int
    var at = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

    func fail(_ message: String) -> JSONError { JSONError(at: at, message) }

    /// What is at the cursor, for an error: a byte or the end.
    var found: String { peek.map(JSONError.name) ?? "end of line" }

    mutating func skipSpace() {
        while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { at += 1 }
    }

    mutating func expect(_ literal: String, _ value: JSONValue) throws(JSONError) -> JSONValue {
        for byte in literal.utf8 {
            guard peek == byte else { throw fail("expected \(literal), found \(found)") }
            at += 1
        }
        return value
    }

    mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard let byte = peek else { throw fail("expected a value, found end of line") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("expected a value, found \(found)")
        }
    }

    mutating func object(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw fail("nested deeper than \(maxDepth)") }
        at += 1
        var members: [JSONMember] = []
        skipSpace()
        if peek == UInt8(ascii: "}") { at += 1; return .object(members) }
        while true {
            skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw fail("expected a key string, found \(found)") }
            let keyAt = at
            let key = try string()
            guard !members.contains(where: { $0.key == key }) else { throw JSONError(at: keyAt, "duplicate key \(JSONValue.quoted(key))") }
            skipSpace()
            guard peek == UInt8(ascii: ":") else { throw fail("expected ':' after key \(JSONValue.quoted(key)), found \(found)") }
            at += 1
            skipSpace()
            members.append(JSONMember(key, try value(depth: depth)))
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "}"): at += 1; return .object(members)
            default: throw fail("expected ',' or '}' in an object, found \(found)")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw fail("nested deeper than \(maxDepth)") }
        at += 1
        var items: [JSONValue] = []
        skipSpace()
        if peek == UInt8(ascii: "]") { at += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value(depth: depth))
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "]"): at += 1; return .array(items)
            default: throw fail("expected ',' or ']' in an array, found \(found)")
            }
        }
    }
}
