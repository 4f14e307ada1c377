import TOML

/// How a board file is told from a configuration file by its keys, so that a board file
/// given where the configuration belongs (`check-config boards/pi4.toml`) is named as such.
extension BoardFile {
    /// The top-level keys of a board file; `buttons`, `buzzer` and `horn` are a
    /// configuration's too.
    package static let topLevelKeys: Set<String> = ["name", "description", "i2c", "panels", "layouts", "lights",
                                                    "buttons", "buzzer", "horn"]
    private static let sharedKeys: Set<String> = ["buttons", "buzzer", "horn"]

    /// Whether `root` is a board file's: every key is one a board file has, and one at least
    /// is one a configuration file never has (a board file has `name` and `[[panels]]`).
    static func isBoardShaped(_ root: TOMLTable) -> Bool {
        root.keys.allSatisfy(topLevelKeys.contains) && root.keys.contains { !sharedKeys.contains($0) }
    }

    /// The error for the board file `file` read as a configuration: how the configuration names it.
    static func readAsConfig(_ file: String) -> ConfigError {
        let value = escapedBasicString(ShippedBoards.boardValue(for: file))
        return ConfigError(file: file, location: "",
                           message: "this is a board file: use board = \(value) in the config (e.g. \(Config.defaultPath))")
    }
}
