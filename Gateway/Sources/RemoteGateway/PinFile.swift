import Platform
import RoundClockConfig

/// The PIN when `[remote] pin` is not set: six random digits made once and kept in
/// `<state dir>/pin` (mode 0600, written atomically by `DurableFiles`), so it survives
/// restarts and `roundclock-gateway --show-pin` prints the same one.
public enum PinFile {
    public static let name = "pin"
    static let generatedDigits = 6

    public enum Problem: Error, CustomStringConvertible {
        case system(SystemError)
        case unusable(path: String, reason: String)
        public var description: String {
            switch self {
            case .system(let error): "\(error)"
            case .unusable(let path, let reason): "\(path): \(reason); delete it and a new PIN is made"
            }
        }
    }

    /// The configured PIN, else the stored one, else a new one stored now.
    public static func pin(configured: String?, stateDirectory: String) throws(Problem) -> String {
        if let configured { return configured }
        let path = stateDirectory + "/" + name
        if !DurableFiles.isFree(path) {
            let bytes: [UInt8]
            do { bytes = try SmallFiles.read(path, limit: 64, followSymlinks: false) } catch { throw .system(error) }
            let text = String(decoding: bytes, as: UTF8.self)
            let pin = text.hasSuffix("\n") ? String(text.dropLast()) : text
            if let problem = RemoteSettings.pinProblem(pin) { throw .unusable(path: path, reason: problem) }
            return pin
        }
        var random = SystemRandomNumberGenerator()
        let pin = String((0..<generatedDigits).map { _ in Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &random))) })
        do {
            try DurableFiles.prepareDirectory(stateDirectory)
            try DurableFiles.writeAtomically(pin + "\n", path: path, temp: path + ".tmp", directory: stateDirectory, permissions: 0o600)
        } catch {
            throw .system(error)
        }
        return pin
    }
}
