import Hex

extension TOMLValue {
    /// The value as TOML would write it inline, on one line (strings as escaped basic
    /// strings), cut after about `limit` characters: for error messages.
    public func inlineText(limit: Int = 60) -> String {
        let text = inlineText
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }

    private var inlineText: String {
        switch self {
        case .string(let s): escapedBasicString(s)
        case .integer(let n): String(n)
        case .float(let x): x.isNaN ? "nan" : x == .infinity ? "inf" : x == -.infinity ? "-inf" : String(x)
        case .boolean(let b): b ? "true" : "false"
        case .offsetDateTime(let date, let time, let offset): "\(date)T\(time)\(offsetText(offset))"
        case .localDateTime(let date, let time): "\(date)T\(time)"
        case .localDate(let date): "\(date)"
        case .localTime(let time): "\(time)"
        case .array(let items): "[" + items.map(\.inlineText).joined(separator: ", ") + "]"
        case .table(let table): "{" + table.keys.map { "\(render([$0])) = \(table[$0]?.inlineText ?? "")" }.joined(separator: ", ") + "}"
        }
    }

    private func offsetText(_ minutes: Int) -> String {
        guard minutes != 0 else { return "Z" }
        let sign = minutes < 0 ? "-" : "+"
        return sign + twoDigits(abs(minutes) / 60) + ":" + twoDigits(abs(minutes) % 60)
    }
}

extension TOMLDate: CustomStringConvertible {
    public var description: String {
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + twoDigits(month) + "-" + twoDigits(day)
    }
}

extension TOMLTime: CustomStringConvertible {
    public var description: String {
        var text = twoDigits(hour) + ":" + twoDigits(minute) + ":" + twoDigits(second)
        if nanosecond > 0 {
            let digits = String(nanosecond)
            var fraction = String(repeating: "0", count: max(0, 9 - digits.count)) + digits
            while fraction.last == "0" { fraction.removeLast() }
            text += "." + fraction
        }
        return text
    }
}

private func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

/// `"…"` with `\"`, `\\`, the short escapes and `\uXXXX` for every other control
/// character (C0, DEL, C1, U+2028/9): always one line, and valid TOML.
public func escapedBasicString(_ text: String) -> String {
    "\"" + escaped(text, quoting: true) + "\""
}

/// `text` with control characters escaped as TOML writes them (`\n`, `\t`, `\u001B`), so
/// that it stays on one line; quotes and backslashes are left as they are.
public func escapedControlCharacters(_ text: String) -> String {
    text.unicodeScalars.contains(where: isControl) ? escaped(text, quoting: false) : text
}

private func escaped(_ text: String, quoting: Bool) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"" where quoting: out += "\\\""
        case "\\" where quoting: out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        case "\u{8}": out += "\\b"
        case "\u{C}": out += "\\f"
        default:
            if isControl(scalar) {
                out += "\\u" + hex(scalar.value, digits: 4, uppercase: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out
}

/// C0 controls, DEL, C1 controls and the Unicode line and paragraph separators:
/// characters that break or garble a line of a terminal or a log.
public func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
}
