import Platform
import RoundClockConfig

/// The PIN when `[remote] pin` is not set: `generatedDigits` random digits made once and kept
/// in `<state dir>/pin` (mode 0600, written atomically by `DurableFiles`), so it survives
/// restarts and `roundclock-gateway --show-pin` prints the same one.
public enum PinFile {
    public static let name = "pin"

    /// 10 digits: the back-off finds such a PIN within a year with a chance of 0.023 %.
    /// An attacker is assumed to hold a whole IPv4 /24 (254 addresses) and 10 IPv6 addresses: 264
    /// keys (`PinStrength.attackerKeys`). Each key tries whenever `PinAttempts` allows: 5 tries
    /// at once, then one after each wait of 30 s, 1, 2, 4, 8, 16 and 32 min (12 tries within
    /// 3,810 s), then one an hour: 12 + ⌊(31,536,000 − 3,810) / 3,600⌋ = 8,770 tries in 365
    /// days. Staying quiet 24 h to be forgotten costs 24 hourly tries and wins back at most 12
    /// fast ones, so it never pays. 264 × 8,770 = 2,315,280 tries a year, out of 10^10 PINs:
    /// 0.023 %. 9 digits would give 0.23 %, 8 digits 2.3 %, and 6 digits fall in 78 days on
    /// average.
    public static let generatedDigits = 10

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

    public static func path(stateDirectory: String) -> String { stateDirectory + "/" + name }

    /// The configured PIN, else the stored one, else a new one stored now.
    public static func pin(configured: String?, stateDirectory: String) throws(Problem) -> String {
        if let configured { return configured }
        let path = path(stateDirectory: stateDirectory)
        if !DurableFiles.isFree(path) {
            let bytes: [UInt8]
            do { bytes = try SmallFiles.read(path, limit: 64, followSymlinks: false) } catch { throw .system(error) }
            let text = String(decoding: bytes, as: UTF8.self)
            let pin = text.hasSuffix("\n") ? String(text.dropLast()) : text
            if let problem = RemoteSettings.pinProblem(pin) { throw .unusable(path: path, reason: problem) }
            return pin
        }
        var random = SystemRandomNumberGenerator()
        let digits = (0..<generatedDigits).map { _ in UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &random) }
        let pin = String(decoding: digits, as: UTF8.self)
        do {
            try DurableFiles.prepareDirectory(stateDirectory)
            try DurableFiles.writeAtomically(pin + "\n", path: path, temp: path + ".tmp", directory: stateDirectory, permissions: 0o600)
        } catch {
            throw .system(error)
        }
        return pin
    }

    /// The line the gateway logs at start when `pin` is shorter than a generated one: how long
    /// the back-off needs on average to find a configured PIN, or how to replace a stored one.
    public static func shortPinNotice(pin: String, configured: Bool, stateDirectory: String) -> String? {
        let digits = pin.utf8.count
        guard digits < generatedDigits else { return nil }
        let time = PinStrength.spoken(seconds: PinStrength.averageSecondsToFind(digits: digits))
        if configured {
            return "[remote] pin has \(digits) digits: guessing at the enforced rate finds it in about \(time) "
                + "on average; a generated PIN has \(generatedDigits) digits"
        }
        return "the stored PIN has \(digits) digits (found in about \(time) on average); deleting "
            + "\(path(stateDirectory: stateDirectory)) makes a new \(generatedDigits)-digit one at the next start"
    }
}
