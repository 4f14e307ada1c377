import JSON
import RoundClockConfig
import TOML

/// The setup page's values between JSON (the control socket) and TOML (the settings file):
/// strings, whole numbers, true/false and arrays of strings, the kinds its keys take.
enum SettingsJSON {
    /// `value` as TOML; `nil` for JSON's `null` (the key is removed). Errors name `key`.
    static func toml(_ value: JSONValue, key: String) throws(ConfigError) -> TOMLValue? {
        switch value {
        case .null: return nil
        case .bool(let b): return .boolean(b)
        case .string(let s): return .string(s)
        case .number:
            guard let n = value.int else {
                throw ConfigError(file: SettingsLayer.pageSource, location: key, message: "expected a whole number, got \(value.encoded)")
            }
            return .integer(Int64(n))
        case .array(let items):
            var strings: [TOMLValue] = []
            for item in items {
                guard let s = item.string else {
                    throw ConfigError(file: SettingsLayer.pageSource, location: key, message: "expected an array of strings, got \(item.encoded) in it")
                }
                strings.append(.string(s))
            }
            return .array(strings)
        case .object:
            throw ConfigError(file: SettingsLayer.pageSource, location: key, message: "expected a value, not an object")
        }
    }

    /// A TOML value of the page's kinds as JSON (a date or a table, which the page never
    /// sets, as its TOML text).
    static func json(_ value: TOMLValue) -> JSONValue {
        switch value {
        case .string(let s): .string(s)
        case .integer(let n): .int(n)
        case .boolean(let b): .bool(b)
        case .array(let items): .array(items.map(json))
        default: .string(value.inlineText(limit: Int.max))
        }
    }

    /// The members of a `{key: value}` object.
    static func object(_ pairs: [(key: String, value: TOMLValue)]) -> JSONValue {
        .object(pairs.map { JSONMember($0.key, json($0.value)) })
    }
}
