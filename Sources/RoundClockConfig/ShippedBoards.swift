import Platform
import RoundClockCore
import TOML

/// The board files shipped with RoundClock (`boards/*.toml`), which the configuration's
/// `board` key may name by their short name (`board = "pi4"`).
public enum ShippedBoards {
    /// The short names, `boards/NAME.toml` of the source tree.
    public static let names = ["bigdigits", "generic", "pi-zero-2w", "pi3", "pi4", "pi5", "simulator"]

    /// Where they are installed, searched in this order: `scripts/install.sh`'s prefix
    /// (/usr/local, as PATH puts it first), then the Debian package's.
    public static let directories = ["/usr/local/share/roundclock/boards", "/usr/share/roundclock/boards"]

    /// Whether a `board` value is a short name rather than a path: no slash and no dot
    /// (`pi4`, not `pi4.toml` or `./pi4`).
    static func isShortName(_ value: String) -> Bool {
        !value.contains("/") && !value.contains(".")
    }

    /// The file of the shipped board `name`: in the first of `directories` that has it, else
    /// in the last (the package's place, which the error of a board not installed names).
    static func path(of name: String, in directories: [String]) -> String {
        let candidates = directories.map { "\($0)/\(name).toml" }
        return candidates.first { !DurableFiles.isFree($0) } ?? candidates.last ?? "\(name).toml"
    }

    /// Why `name` names no shipped board: the nearest name, and all of them.
    static func unknownNameMessage(_ name: String) -> String {
        let near = NearestName.of(name, among: names).map { "did you mean \"\($0)\"? " } ?? ""
        return "\(escapedBasicString(name)) is not a shipped board; \(near)the shipped boards are "
            + names.joined(separator: ", ") + "; for a file of your own give its path, e.g. \"./\(name).toml\""
    }

    /// How the config names the board file `file`: its short name when it is a shipped board
    /// (a file `boards/NAME.toml`), else its path.
    static func boardValue(for file: String) -> String {
        let parts = file.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 2, parts[parts.count - 2] == "boards", let last = parts.last, last.hasSuffix(".toml") {
            let name = String(last.dropLast(".toml".count))
            if names.contains(name) { return name }
        }
        return file
    }
}
