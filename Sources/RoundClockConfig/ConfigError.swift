/// A configuration or board file that cannot be used: names the file, where in it
/// (line for syntax errors, key path for values), the bad value and what is allowed.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// `line 4, column 10` or a key path such as `panels[2].address`.
    public var location: String
    public var message: String

    public init(file: String, location: String, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        location.isEmpty ? "\(file): \(message)" : "\(file): \(location): \(message)"
    }

    /// `EX_CONFIG` from sysexits.h.
    public static let exitCode: Int32 = 78
}
