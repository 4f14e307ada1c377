import Hex
import RoundClockCore
import TOML

/// Typed, strict access to one TOML table: every read names its key path in errors,
/// and `finish()` rejects keys nobody asked for (typos never pass silently).
struct TOMLReader {
    let file: String
    let path: String
    let table: TOMLTable
    private var used: Set<String> = []
    /// `path` in the reference's notation (`programs.<name>.intervals[]`), for `recorder`.
    private let pattern: String
    /// Set by `claimAllKeys()`: this table's keys are free-form names, `<name>` in `pattern`.
    private var keysAreNames = false
    private let recorder: KeyPathRecorder?
    /// The file's top-level keys that hold values (`board`, `program`): one of them found in
    /// a table was written after a `[table]` header by mistake.
    var topLevelValueKeys: [String] = []

    init(file: String, path: String = "", pattern: String = "", table: TOMLTable, recorder: KeyPathRecorder? = nil) {
        self.file = file
        self.path = path
        self.pattern = pattern
        self.table = table
        self.recorder = recorder
    }

    /// A reader of `table`, found under this one at `path`.
    private func child(path: String, pattern: String, table: TOMLTable) -> TOMLReader {
        var reader = TOMLReader(file: file, path: path, pattern: pattern, table: table, recorder: recorder)
        reader.topLevelValueKeys = topLevelValueKeys
        return reader
    }

    /// Parses a whole document; syntax errors carry line and column.
    static func parse(_ text: String, file: String, recorder: KeyPathRecorder? = nil) throws(ConfigError) -> TOMLReader {
        do {
            return TOMLReader(file: file, table: try TOML.parse(text), recorder: recorder)
        } catch {
            throw ConfigError(file: file, location: "line \(error.line), column \(error.column)", message: "not valid TOML: \(error.message)")
        }
    }

    /// `table.key`; keys that are not bare TOML keys are quoted (`programs."my:prog"`).
    func keyPath(_ key: String) -> String {
        let bare = !key.isEmpty && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        let shown = bare ? key : escapedBasicString(key)
        return path.isEmpty ? shown : "\(path).\(shown)"
    }

    /// The error at `key`, with the line the key is on when the file has it.
    func fail(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: file, location: keyPath(key), message: message, line: table.line(of: key))
    }

    /// `key`'s path in the reference's notation.
    private func keyPattern(_ key: String) -> String {
        let shown = keysAreNames ? "<name>" : key
        return pattern.isEmpty ? shown : "\(pattern).\(shown)"
    }

    /// Reads `key`, marking it used (and noting it in `recorder`).
    private mutating func value(_ key: String, _ kind: KeyPathRecorder.Kind = .value) -> TOMLValue? {
        used.insert(key)
        let value = table[key]
        recorder?.asked(keyPattern(key), kind, present: kind == .arrayOfTables ? value?.array?.isEmpty == false : value != nil)
        return value
    }

    /// The value as TOML writes it, on one line (strings escaped).
    private func describe(_ value: TOMLValue) -> String {
        value.inlineText()
    }

    /// A string value. Control characters (U+0000–U+001F, U+007F: e.g. `"\u0000"`, `"\n"`)
    /// are refused: no path, line name, program or choice has one, and a NUL would silently
    /// cut a path handed to open(2) or a GPIO line name handed to libgpiod.
    mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.string else { throw fail(key, "expected a string in quotes, got \(describe(v))") }
        guard !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw fail(key, "\(describe(v)) contains a control character; none is allowed here")
        }
        return s
    }

    mutating func requiredString(_ key: String) throws(ConfigError) -> String {
        guard let s = try string(key) else { throw fail(key, "missing; it is required") }
        return s
    }

    mutating func int(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let v = value(key) else { return nil }
        guard let n = v.integer.flatMap(Int.init(exactly:)) else { throw fail(key, "expected a whole number from \(range.lowerBound) to \(range.upperBound), got \(describe(v))") }
        guard range.contains(n) else { throw fail(key, "\(n) is out of range; allowed are \(range.lowerBound) to \(range.upperBound)") }
        return n
    }

    /// An I2C address, written in hex as i2cdetect shows it (`0x70`): every message says the
    /// range in hex, and a decimal number out of range is shown in hex too (`70` is `0x46`).
    mutating func i2cAddress(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let v = value(key) else { return nil }
        let allowed = "0x\(hex(UInt(range.lowerBound))) to 0x\(hex(UInt(range.upperBound)))"
        guard let n = v.integer.flatMap(Int.init(exactly:)) else {
            throw fail(key, "expected an address from \(allowed), written in hex without quotes, got \(describe(v))")
        }
        guard range.contains(n) else {
            let shown = n >= 0 ? "\(n) (0x\(hex(UInt(n))))" : "\(n)"
            throw fail(key, "\(shown) is out of range; allowed are \(allowed), written in hex")
        }
        return n
    }

    mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard let b = v.boolean else { throw fail(key, "expected true or false, got \(describe(v))") }
        return b
    }

    mutating func choice(_ key: String, _ allowed: [String]) throws(ConfigError) -> String? {
        guard let s = try string(key) else { return nil }
        guard allowed.contains(s) else { throw fail(key, "\(escapedBasicString(s)) is not allowed; use one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))") }
        return s
    }

    mutating func table(_ key: String) throws(ConfigError) -> TOMLReader? {
        guard let v = value(key, .table) else { return nil }
        guard let t = v.table else { throw fail(key, "expected a table [\(keyPath(key))], got \(describe(v))") }
        return child(path: keyPath(key), pattern: keyPattern(key), table: t)
    }

    /// An array of tables (`[[key]]`).
    mutating func tables(_ key: String) throws(ConfigError) -> [TOMLReader] {
        guard let v = value(key, .arrayOfTables) else { return [] }
        guard let array = v.array else { throw fail(key, "expected an array of tables [[\(keyPath(key))]], got \(describe(v))") }
        var out: [TOMLReader] = []
        for (index, element) in array.enumerated() {
            guard let t = element.table else { throw fail(key, "element \(index + 1) is not a table") }
            out.append(child(path: "\(keyPath(key))[\(index + 1)]", pattern: "\(keyPattern(key))[]", table: t))
        }
        return out
    }

    /// An array of strings (`start_at = ["06:00", "18:30"]`), each checked as `string` is.
    mutating func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let v = value(key) else { return nil }
        guard let array = v.array else { throw fail(key, "expected an array of strings, e.g. [\"06:00\", \"18:30\"], got \(describe(v))") }
        var out: [String] = []
        for element in array {
            guard let s = element.string, !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw fail(key, "element \(out.count + 1) is \(describe(element)); expected a string such as \"18:30\"")
            }
            out.append(s)
        }
        return out
    }

    /// An integer, or an array of integers (e.g. a buzzer pattern). `what` says what is allowed.
    mutating func intOrIntArray(_ key: String, what: String) throws(ConfigError) -> [Int]? {
        guard let v = value(key) else { return nil }
        if let n = v.integer.flatMap(Int.init(exactly:)) { return [n] }
        guard let array = v.array else { throw fail(key, "expected \(what), got \(describe(v))") }
        var out: [Int] = []
        for element in array {
            guard let n = element.integer.flatMap(Int.init(exactly:)) else { throw fail(key, "element \(out.count + 1) is \(describe(element)); expected \(what)") }
            out.append(n)
        }
        guard !out.isEmpty else { throw fail(key, "empty array; expected \(what)") }
        return out
    }

    /// A non-empty path read from `key`'s `value`; relative ones are relative to the config
    /// file's directory.
    func path(_ value: String, key: String, configFile: String) throws(ConfigError) -> String {
        guard !value.isEmpty else { throw fail(key, "empty; give a path") }
        if value.hasPrefix("/") { return value }
        guard let slash = configFile.lastIndex(of: "/") else { return value }
        return String(configFile[...slash]) + value
    }

    /// The value of `key` without reading it (choosing how to read a `[programs]` entry).
    func peek(_ key: String) -> TOMLValue? { table[key] }

    /// Every key of this table, sorted, marked as used (a table of free-form names).
    mutating func claimAllKeys() -> [String] {
        let keys = table.keys.sorted()
        used.formUnion(keys)
        keysAreNames = true
        return keys
    }

    /// Rejects keys that were never read: a typo must not be silently ignored. The message
    /// names the fix: the key it most likely meant, or that a top-level key written after a
    /// `[table]` header belongs above it.
    func finish() throws(ConfigError) {
        for key in table.keys.sorted() where !used.contains(key) {
            if !path.isEmpty, topLevelValueKeys.contains(key) {
                let line = table.line(of: key).map { "line \($0)" } ?? "it"
                throw fail(key, "unknown key; top-level keys go before the first [table]: move \(line) above it")
            }
            let known = used.sorted()
            if let near = NearestName.of(key, among: known) {
                throw fail(key, "unknown key; did you mean '\(near)'?")
            }
            throw fail(key, "unknown key; known here: \(known.joined(separator: ", "))")
        }
    }
}

/// Every key path the config and board readers ask for while reading a file, in the notation
/// of the configuration reference (docs/configuration.md, roundclock.toml(5)): dotted
/// (`display.cadence`), `<name>` for a free-form name (`programs.<name>.rounds`), `[]` for
/// the elements of an array of tables (`panels[].role`). The doc tests read a file that has
/// every table with it and compare the keys with the reference.
package final class KeyPathRecorder {
    enum Kind { case value, table, arrayOfTables }

    /// The keys asked for, whether the file has them or not: values and arrays of tables
    /// (`panels`), not tables (`display`: a section of the reference, not a key).
    package private(set) var keys: Set<String> = []
    /// Tables and arrays of tables asked for that the file never has (or has empty): the
    /// keys inside them were never asked for, so `keys` is complete only when this is empty.
    package var missingTables: Set<String> { absentTables.subtracting(presentTables) }
    private var absentTables: Set<String> = []
    private var presentTables: Set<String> = []

    package init() {}

    func asked(_ keyPath: String, _ kind: Kind, present: Bool) {
        if kind != .table { keys.insert(keyPath) }
        if kind != .value {
            if present { presentTables.insert(keyPath) } else { absentTables.insert(keyPath) }
        }
    }
}
