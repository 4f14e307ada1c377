#if canImport(Glibc)
import Glibc
#endif
import Platform

extension SettingsLayer {
    /// Why the layer's file could not be used: not read at all, or read and refused.
    public enum FileProblem: Error, CustomStringConvertible {
        case unreadable(SystemError)
        case invalid(ConfigError)

        public var description: String {
            switch self {
            case .unreadable(let error): error.description
            case .invalid(let error): error.description
            }
        }
    }

    /// The layer in the file at `path` (never through a link, at most `maxBytes`); an empty
    /// layer when there is no such file (nor its directory).
    public static func read(_ path: String) throws(FileProblem) -> SettingsLayer {
        let text: String
        do throws(SystemError) {
            text = try SmallFiles.readText(path, limit: maxBytes, followSymlinks: false)
        } catch where (error.errno == ENOENT || error.errno == ENOTDIR) && error.operation == "open" {
            return SettingsLayer()
        } catch {
            throw .unreadable(error)
        }
        do throws(ConfigError) {
            return try load(text, file: path)
        } catch {
            throw .invalid(error)
        }
    }
}
