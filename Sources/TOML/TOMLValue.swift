/// One TOML value (TOML 1.0.0, "Keys/Value" and the type sections of the spec).
public enum TOMLValue: Sendable, Hashable {
    case string(String)
    /// TOML integers are 64-bit signed ("Integer": "Arbitrary 64-bit signed integers").
    case integer(Int64)
    /// IEEE 754 binary64 ("Float").
    case float(Double)
    case boolean(Bool)
    /// RFC 3339 date-time with an offset; `Z` is offset 0.
    case offsetDateTime(TOMLDate, TOMLTime, offsetMinutes: Int)
    case localDateTime(TOMLDate, TOMLTime)
    case localDate(TOMLDate)
    case localTime(TOMLTime)
    case array([TOMLValue])
    case table(TOMLTable)

    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var integer: Int64? { if case .integer(let n) = self { n } else { nil } }
    public var boolean: Bool? { if case .boolean(let b) = self { b } else { nil } }
    public var array: [TOMLValue]? { if case .array(let a) = self { a } else { nil } }
    public var table: TOMLTable? { if case .table(let t) = self { t } else { nil } }
}

/// `full-date` of RFC 3339: year 0001–9999 (year 0 is refused, as Python's `tomllib` does).
public struct TOMLDate: Sendable, Hashable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
}

/// `partial-time` of RFC 3339: seconds 00–59 (no leap second, as `tomllib`); the fraction
/// is kept to nanoseconds and truncated beyond, as the spec's "Local Time" section requires.
public struct TOMLTime: Sendable, Hashable {
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var nanosecond: Int

    public init(hour: Int, minute: Int, second: Int, nanosecond: Int) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }
}

/// A table: keys in document order. Keys compare by Unicode scalars, not by canonical
/// equivalence (`"é"` and `"e\u{301}"` are two keys, as the spec's byte-wise keys are).
public struct TOMLTable: Sendable, Hashable {
    public private(set) var keys: [String] = []
    private var values: [TOMLKey: TOMLValue] = [:]
    /// The line each key was written on, for messages; not part of equality.
    private var lines: [TOMLKey: Int] = [:]

    public init() {}

    public subscript(key: String) -> TOMLValue? { values[TOMLKey(key)] }

    /// The 1-based line on which the document defines `key`: its `key = value`, or the header
    /// (`[key]`, the first `[[key]]`, or a deeper `[key.sub]`) that creates it. `nil` for a
    /// key this table lacks.
    public func line(of key: String) -> Int? { lines[TOMLKey(key)] }

    public var isEmpty: Bool { keys.isEmpty }

    /// Equal tables hold the same keys and values, in any order.
    public static func == (a: TOMLTable, b: TOMLTable) -> Bool { a.values == b.values }
    public func hash(into hasher: inout Hasher) { hasher.combine(values) }

    /// Adds a key that is not there yet (the parser checks duplicates before), written on
    /// `line` of the document when it comes from one.
    mutating func append(_ key: String, _ value: TOMLValue, line: Int? = nil) {
        keys.append(key)
        values[TOMLKey(key)] = value
        lines[TOMLKey(key)] = line
    }
}

/// A dictionary key equal only to the same sequence of Unicode scalars.
struct TOMLKey: Hashable, Sendable {
    let text: String
    init(_ text: String) { self.text = text }
    static func == (a: TOMLKey, b: TOMLKey) -> Bool { a.text.unicodeScalars.elementsEqual(b.text.unicodeScalars) }
    func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }
}
