import TOML

/// The settings saved from the phone's setup page: a few keys of the config file's, kept in
/// the clock's state directory (`settings.toml`) and laid over `/etc/roundclock/config.toml`
/// key by key (docs/configuration.md "The setup page's settings"). The file holds only keys
/// the page may set, each checked with the config file's own checker once laid over it.
public struct SettingsLayer: Sendable, Hashable {
    /// When a changed key reaches the clock.
    public enum Effect: String, Sendable, Hashable {
        /// At once, on the panels and in the session's next change.
        case live
        /// Once no round runs: the panels are set up again for it.
        case whenIdle = "when-idle"
    }

    /// The key paths the page may set, in the order the reference lists them, and when each
    /// takes effect.
    public static let keys: KeyValuePairs<String, Effect> = [
        "board": .whenIdle,
        "program": .live,
        "start_at": .live,
        "brightness.day": .live,
        "brightness.night": .live,
        "brightness.night_from": .live,
        "brightness.day_from": .live,
        "idle.clock_after_minutes": .live,
        "display.cadence": .live,
    ]
    /// The file's name in the state directory.
    public static let fileName = "settings.toml"
    /// The file is at most this many bytes.
    public static let maxBytes = 16 * 1024
    /// What errors about a value sent by the page name as their file.
    public static let pageSource = "settings"

    /// The keys set, as a TOML table (`brightness.day` in `[brightness]`).
    public private(set) var table = TOMLTable()

    public init() {}

    /// The file's text: what `load` reads back.
    public var text: String { table.documentText }

    /// Every key set, dotted, in the file's order.
    public var keyPaths: [String] { table.valuePaths.map(Self.dotted) }

    /// The value of a dotted key, if set.
    public func value(_ keyPath: String) -> TOMLValue? { table[path: Self.parts(keyPath)] }

    /// Reads the saved file's `text`; errors name `file`.
    public static func load(_ text: String, file: String) throws(ConfigError) -> SettingsLayer {
        guard text.utf8.count <= maxBytes else {
            throw ConfigError(file: file, location: "", message: "\(text.utf8.count) bytes; at most \(maxBytes) bytes")
        }
        let table = try TOMLReader.parse(text, file: file).table
        var layer = SettingsLayer()
        for path in table.valuePaths {
            let key = dotted(path)
            try checkSettable(key, file: file)
            try checkValue(key, table[path: path], file: file)
            layer.table = layer.table.setting(path, to: table[path: path])
        }
        if let stray = table.keys.first(where: { table[$0]?.table?.isEmpty == true }) {
            throw ConfigError(file: file, location: stray, message: "an empty table; the setup page's file holds values only")
        }
        return layer
    }

    /// This layer with `keyPath` set to `value`, or removed with `nil` (back to the config
    /// file's value). Only the page's keys may be set; the value itself is checked when the
    /// layer is laid over the config file (`Config.load(_:layer:layerFile:)`).
    public func setting(_ keyPath: String, to value: TOMLValue?) throws(ConfigError) -> SettingsLayer {
        try Self.checkSettable(keyPath, file: Self.pageSource)
        try Self.checkValue(keyPath, value, file: Self.pageSource)
        var next = self
        next.table = table.setting(Self.parts(keyPath), to: value)
        guard next.text.utf8.count <= Self.maxBytes else {
            throw ConfigError(file: Self.pageSource, location: keyPath, message: "the settings would take more than \(Self.maxBytes) bytes")
        }
        return next
    }

    /// `error` as this layer's, naming `file`, when it is about a key the layer sets.
    public func naming(_ error: ConfigError, as file: String) -> ConfigError {
        guard let key = keyPaths.first(where: { error.location == $0 || error.location.hasSuffix(" \($0)") }) else { return error }
        return ConfigError(file: file, location: key, message: error.message)
    }

    /// When the change from `old` to this layer reaches the clock: `whenIdle` if a key of
    /// that kind changed, else `live`; `nil` if nothing changed.
    public func effect(since old: SettingsLayer) -> Effect? {
        let changed = Set(keyPaths + old.keyPaths).filter { value($0) != old.value($0) }
        guard !changed.isEmpty else { return nil }
        return changed.contains { Self.effect(of: $0) == .whenIdle } ? .whenIdle : .live
    }

    /// When `keyPath` takes effect; `nil` for a key the page may not set.
    public static func effect(of keyPath: String) -> Effect? {
        keys.first { $0.key == keyPath }?.value
    }

    /// The page picks a shipped board by name, never a path: a path would let a phone have
    /// the clock read any file it can and show the start of it in the checker's error.
    private static func checkValue(_ keyPath: String, _ value: TOMLValue?, file: String) throws(ConfigError) {
        guard keyPath == "board", let value else { return }
        guard let name = value.string, ShippedBoards.names.contains(name) else {
            throw ConfigError(file: file, location: keyPath, message: "\(value.inlineText()) is not a shipped board; the setup page picks one of "
                + "\(ShippedBoards.names.joined(separator: ", ")); a board file of your own goes in \(Config.defaultPath)")
        }
    }

    private static func checkSettable(_ keyPath: String, file: String) throws(ConfigError) {
        guard effect(of: keyPath) == nil else { return }
        let known = keys.map(\.key).joined(separator: ", ")
        throw ConfigError(file: file, location: keyPath,
                          message: "the setup page cannot set this key (it sets \(known)); set it in \(Config.defaultPath)")
    }

    static func parts(_ keyPath: String) -> [String] {
        keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    static func dotted(_ path: [String]) -> String { path.joined(separator: ".") }
}
