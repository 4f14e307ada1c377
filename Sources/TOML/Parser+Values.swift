/// Values ("Keys/Value" section): the kind is told by the first characters; arrays
/// ("Array") and inline tables ("Inline Table") nest up to `TOML.maximumDepth`.
extension Parser {
    /// One value; `depth` is how deep it sits, for the nesting bound.
    mutating func value(depth: Int) throws(TOMLError) -> TOMLValue {
        switch peek() {
        case .quote: return .string(hasPrefix("\"\"\"") ? try multilineString(.quote) : try basicString())
        case .apostrophe: return .string(hasPrefix("'''") ? try multilineString(.apostrophe) : try literalString())
        case .openBracket: return try array(depth: depth + 1)
        case .openBrace: return try inlineTable(depth: depth + 1)
        default: break
        }
        if hasPrefix("true") {
            pos += 4
            return .boolean(true)
        }
        if hasPrefix("false") {
            pos += 5
            return .boolean(false)
        }
        let start = pos
        var scalar = try dateOrTime()
        if scalar == nil { scalar = try number() }
        if let scalar {
            if let next = peek(), isBareKeyByte(next) || next == .dot || next == .plus || next == .colon {
                throw fail("not a valid number, date or time: \(found(from: start))", at: start)
            }
            return scalar
        }
        throw fail("expected a value (a \"string\", a number, true or false, a date or time, [array] or {table}), found \(found())")
    }

    private mutating func array(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth <= TOML.maximumDepth else { throw fail("arrays and tables nest deeper than \(TOML.maximumDepth) levels") }
        let start = pos
        pos += 1
        var items: [TOMLValue] = []
        while true {
            try skipWhitespaceNewlinesAndComments()
            guard peek() != nil else { throw fail("unterminated array: the end of the file came before its closing ']'", at: start) }
            if peek() == .closeBracket {
                pos += 1
                return .array(items)
            }
            items.append(try value(depth: depth))
            try skipWhitespaceNewlinesAndComments()
            switch peek() {
            case .closeBracket:
                pos += 1
                return .array(items)
            case .comma:
                pos += 1
            case nil:
                throw fail("unterminated array: the end of the file came before its closing ']'", at: start)
            default:
                throw fail("expected ',' or ']' in the array, found \(found())")
            }
        }
    }

    private mutating func inlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth <= TOML.maximumDepth else { throw fail("arrays and tables nest deeper than \(TOML.maximumDepth) levels") }
        pos += 1
        let table = TableNode(.inline)
        skipWhitespace()
        if peek() == .closeBrace {
            pos += 1
            return .table(table.freeze())
        }
        while true {
            skipWhitespace()
            try keyValue(in: table, depth: depth)
            skipWhitespace()
            switch peek() {
            case .closeBrace:
                pos += 1
                return .table(table.freeze())
            case .comma:
                pos += 1
            default:
                throw fail("expected ',' or '}' in the inline table (one line, no trailing comma), found \(found())")
            }
        }
    }
}
