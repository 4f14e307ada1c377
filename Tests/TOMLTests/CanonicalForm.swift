import TOML

/// The value tree as text, the same as `canon()` in generate_corpus.py writes for
/// Python's tomllib: keys sorted by code point, floats by bit pattern, times to microseconds.
func canonical(_ value: TOMLValue) -> String {
    switch value {
    case .table(let table):
        let keys = table.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
        return "{" + keys.map { canonicalString($0) + ":" + canonical(table[$0] ?? .boolean(false)) }.joined(separator: ",") + "}"
    case .array(let items): return "[" + items.map(canonical).joined(separator: ",") + "]"
    case .string(let s): return "s" + canonicalString(s)
    case .boolean(let b): return b ? "true" : "false"
    case .integer(let n): return "i\(n)"
    case .float(let x): return x.isNaN ? "fnan" : "f" + padded(String(x.bitPattern, radix: 16), 16)
    case .offsetDateTime(let d, let t, let offset): return "odt" + date(d) + "T" + time(t) + "@\(offset)"
    case .localDateTime(let d, let t): return "ldt" + date(d) + "T" + time(t)
    case .localDate(let d): return "ld" + date(d)
    case .localTime(let t): return "lt" + time(t)
    }
}

private func canonicalString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        if (0x20..<0x7F).contains(scalar.value), scalar != "\"", scalar != "\\" {
            out.unicodeScalars.append(scalar)
        } else {
            out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }
    return out + "\""
}

private func date(_ d: TOMLDate) -> String { padded(String(d.year), 4) + "-" + padded(String(d.month), 2) + "-" + padded(String(d.day), 2) }

private func time(_ t: TOMLTime) -> String {
    padded(String(t.hour), 2) + ":" + padded(String(t.minute), 2) + ":" + padded(String(t.second), 2) + "." + padded(String(t.nanosecond / 1000), 6)
}

private func padded(_ text: String, _ width: Int) -> String { String(repeating: "0", count: max(0, width - text.count)) + text }
