/// A strict reader for TOML 1.0.0 (https://toml.io/en/v1.0.0), in pure Swift: no
/// Foundation, no C. Every error names the line and column; no input traps, and nesting
/// is bounded so that no input can exhaust the stack.
public enum TOML {
    /// Deepest nesting of tables, arrays and dotted keys accepted (the spec sets no
    /// limit; this one keeps recursion bounded).
    public static let maximumDepth = 128

    /// Parses a whole document.
    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses a whole document given as bytes; invalid UTF-8 is an error with its position.
    public static func parse(bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        var parser = Parser(bytes)
        return try parser.document()
    }
}
