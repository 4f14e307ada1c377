import Hex

/// The one JSON writer of the tree: one line, members separated by `, ` and keys by `: `,
/// as the frames file and the control socket write them (`{"ok": false, "error": "…"}`).
extension JSONValue {
    /// The value as one line of JSON text (no newline in it: a newline in a string is
    /// escaped, RFC 8259 §7).
    public var encoded: String {
        var out = ""
        encode(into: &out)
        return out
    }

    public func encode(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let text): out += text
        case .string(let s): out += JSONValue.quoted(s)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                item.encode(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += ", " }
                out += JSONValue.quoted(member.key)
                out += ": "
                member.value.encode(into: &out)
            }
            out += "}"
        }
    }

    /// `s` as a JSON string (RFC 8259 §7): quotation mark and reverse solidus escaped,
    /// line feed as `\n`, the other control characters below U+0020 as `\u00XX`;
    /// everything else as it is (UTF-8).
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += "\\u" + hex(scalar.value, digits: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
