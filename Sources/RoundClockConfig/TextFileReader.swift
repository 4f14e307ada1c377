import Platform
import TOML

/// The largest board or config file read: 1 MiB.
let textFileLimit = 1 << 20

/// Reads a whole text file (board or config files are small); errors name the file and
/// errno. Never blocks: opened `O_NONBLOCK` and refused unless fstat(2) says it is a regular
/// file (a FIFO, a directory or a device is one clear error line), and never reads more
/// than 1 MiB + 1 bytes.
public func readTextFile(_ path: String) throws(ConfigError) -> String {
    let bytes = try readFileBytes(path, limit: textFileLimit, tooLarge: "larger than 1 MiB; not a board or config file")
    guard let text = String(validating: bytes, as: UTF8.self) else {
        let position = TOMLError.invalidUTF8(in: bytes)
        throw ConfigError(file: path, location: position.map { "line \($0.line), column \($0.column)" } ?? "",
                          message: position?.message ?? "not UTF-8 text")
    }
    return text
}

/// Reads a whole file of at most `limit` bytes, without ever blocking (`readTextFile`'s
/// rules); errors name the file and errno, `tooLarge` says what a larger file is.
func readFileBytes(_ path: String, limit: Int, tooLarge: String) throws(ConfigError) -> [UInt8] {
    func fail(_ message: String) -> ConfigError { ConfigError(file: path, location: "", message: message) }
    do throws(SystemError) {
        return try SmallFiles.read(path, limit: limit)
    } catch {
        if SmallFiles.isTooLarge(error) { throw fail(tooLarge) }
        // Not a regular file: "is a FIFO (named pipe), not a regular file".
        if let reason = error.reason { throw fail(reason) }
        throw fail("cannot \(error.operation == "open" ? "open" : "read"): \(error.why)")
    }
}

extension BoardFile {
    /// Loads a board file from disk, or the built-in simulator board when `path` is nil.
    public static func load(_ path: String?) throws(ConfigError) -> Board {
        guard let path else { return try simulator() }
        return try parse(try readTextFile(path), file: path)
    }
}

extension Config {
    /// Loads the board the configuration names. A board file that cannot be read is
    /// reported against the config's `board` key; errors inside it name the board file.
    public func loadBoard() throws(ConfigError) -> Board {
        switch board {
        case .simulator:
            return try BoardFile.simulator()
        case .file(let path):
            let text: String
            do { text = try readTextFile(path) } catch {
                throw ConfigError(file: file, location: "board", message: "board file \"\(path)\": \(error.location.isEmpty ? "" : error.location + ": ")\(error.message); use the path of a board file, a shipped board's name such as \"pi4\", or \"simulator\"")
            }
            return try BoardFile.parse(text, file: path)
        }
    }
}
