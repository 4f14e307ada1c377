import TOML

/// A configuration or board file that cannot be used: names the file, where in it
/// (line for syntax errors, key path for values), the bad value and what is allowed.
/// Always one line: control characters anywhere in it (a value or key holding a newline,
/// a file name with an escape sequence) are shown escaped, `\n` or `\u001B`.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    // Set once, escaped, in `init`: `description` needs no second pass.
    public let file: String
    /// `line 4, column 10` or a key path such as `panels[2].address`.
    public let location: String
    public let message: String

    public init(file: String, location: String, message: String) {
        self.file = escapedControlCharacters(file)
        self.location = escapedControlCharacters(location)
        self.message = escapedControlCharacters(message)
    }

    public var description: String {
        location.isEmpty ? "\(file): \(message)" : "\(file): \(location): \(message)"
    }

    /// `EX_CONFIG` from sysexits.h.
    public static let exitCode: Int32 = 78
}
