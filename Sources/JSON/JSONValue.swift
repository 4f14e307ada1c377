/// A JSON value (RFC 8259 §3). A number keeps the text it was written with (§6 leaves the
/// precision to implementations; the frames file writes `12.000`, which a `Double` would
/// lose), an object keeps its members in order (§4: their order is the writer's).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's text, valid by §6's grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// A whole number, written in decimal.
    public static func int(_ value: some BinaryInteger) -> JSONValue { .number("\(value)") }

    /// The string, if this is one.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The members, if this is an object.
    public var members: [JSONMember]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// The number as an `Int`, if it is written as a whole number (no fraction, no
    /// exponent) that fits.
    public var int: Int? {
        guard case .number(let text) = self, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else { return nil }
        return Int(text)
    }

    /// The value of the member named `key` of an object (keys are unique: the parser
    /// rejects duplicates).
    public subscript(key: String) -> JSONValue? {
        members?.first { $0.key == key }?.value
    }
}

/// One `"key": value` of an object.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var value: JSONValue
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
