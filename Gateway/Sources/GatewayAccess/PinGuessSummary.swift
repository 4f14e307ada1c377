/// The log of PIN guessing, at most one line a minute: wrong PINs after a key's first and
/// refused (429) logins are counted, and once `interval` has passed since the first of them,
/// one line sums them up. Pure: counts in, a line out, on an injected clock reading.
public struct PinGuessSummary: Sendable {
    public static let interval = Duration.seconds(60)
    /// Addresses counted one by one per line; beyond them, only the totals grow.
    public static let trackedKeys = 4096

    public enum Attempt: Sendable {
        case wrongPin
        case refused
    }

    private var windowStart: ContinuousClock.Instant?
    private var wrong = 0
    private var refused = 0
    private var perKey: [String: Int] = [:]
    private var untrackedKeys = false

    public init() {}

    /// Counts one attempt; returns the line of the previous minute when that minute is over.
    public mutating func count(_ attempt: Attempt, client: String, now: ContinuousClock.Instant) -> String? {
        let line = self.line(now: now)
        if windowStart == nil { windowStart = now }
        switch attempt {
        case .wrongPin: wrong += 1
        case .refused: refused += 1
        }
        if perKey[client] != nil || perKey.count < Self.trackedKeys {
            perKey[client, default: 0] += 1
        } else {
            untrackedKeys = true
        }
        return line
    }

    /// When the pending line is due; `nil` when nothing is counted.
    public var due: ContinuousClock.Instant? { windowStart.map { $0 + Self.interval } }

    /// The line summing up what was counted, once `interval` has passed since the first of it
    /// (or at once with `force`, at shutdown); then the counts start again.
    public mutating func line(now: ContinuousClock.Instant, force: Bool = false) -> String? {
        guard let due, force || now >= due else { return nil }
        let most = perKey.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }
        let addresses = untrackedKeys ? "more than \(grouped(perKey.count))" : grouped(perKey.count)
        var line = "PIN guessing: \(counted(wrong, "wrong PIN")) and \(counted(refused, "refused attempt"))"
        line += " from \(addresses) \(perKey.count == 1 && !untrackedKeys ? "address" : "addresses")"
        line += " in the last minute"
        if let most { line += " (most: \(most.key), \(grouped(most.value)))" }
        self = Self()
        return line
    }

    private func counted(_ number: Int, _ noun: String) -> String {
        "\(grouped(number)) \(noun)\(number == 1 ? "" : "s")"
    }
}

/// `1,840`: decimal digits in groups of three.
func grouped(_ number: Int) -> String {
    let digits = String(number.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { result += "," }
        result.append(digit)
    }
    return (number < 0 ? "-" : "") + result
}
