import TOML

/// A configuration or board file that cannot be used: names the file, where in it
/// (line and column for syntax errors; key path, and its line when known, for values), the
/// bad value and what is allowed.
/// Always one line: control characters anywhere in it (a value or key holding a newline,
/// a file name with an escape sequence) are shown escaped, `\n` or `\u001B`.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    // Set once, escaped, in `init`: `description` needs no second pass.
    public let file: String
    /// `line 4, column 10` or a key path such as `panels[2].address`.
    public let location: String
    /// The 1-based line of the key `location` names, when the text says where it is.
    public let line: Int?
    public let message: String

    public init(file: String, location: String, message: String, line: Int? = nil) {
        self.file = escapedControlCharacters(file)
        self.location = escapedControlCharacters(location)
        self.line = line
        self.message = escapedControlCharacters(message)
    }

    /// `file: line 9: resume.program: message`; the parts that are unknown are left out.
    public var description: String {
        let whereInFile = [line.map { "line \($0)" }, location.isEmpty ? nil : location].compactMap { $0 }
        return ([file] + whereInFile + [message]).joined(separator: ": ")
    }

    /// `EX_CONFIG` from sysexits.h.
    public static let exitCode: Int32 = 78
}
