#if canImport(Glibc)
import Glibc
#endif
import TOML

/// Reads a whole text file (board or config files are small); errors name the file and errno.
public func readTextFile(_ path: String) throws(ConfigError) -> String {
    guard let file = fopen(path, "r") else {
        let code = errno
        throw ConfigError(file: path, location: "", message: "cannot open: \(String(cString: strerror(code))) (errno \(code))")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n > 0 { bytes += buffer[0..<n] }
        if n < buffer.count {
            if ferror(file) != 0 {
                let code = errno
                throw ConfigError(file: path, location: "", message: "cannot read: \(String(cString: strerror(code))) (errno \(code))")
            }
            break
        }
        if bytes.count > 1 << 20 { throw ConfigError(file: path, location: "", message: "larger than 1 MiB; not a board or config file") }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
        let position = TOMLError.invalidUTF8(in: bytes)
        throw ConfigError(file: path, location: position.map { "line \($0.line), column \($0.column)" } ?? "", message: position?.message ?? "not UTF-8 text")
    }
    return text
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
                throw ConfigError(file: file, location: "board", message: "board file \"\(path)\": \(error.location.isEmpty ? "" : error.location + ": ")\(error.message); use the path of a board file or \"simulator\"")
            }
            return try BoardFile.parse(text, file: path)
        }
    }
}
