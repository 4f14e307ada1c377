/// How many PINs the back-off of `PinAttempts` lets an attacker try, and so how long a PIN
/// of some length holds (the computation: `PinFile.generatedDigits`).
public enum PinStrength {
    /// The keys assumed in an attacker's hands: 254 IPv4 addresses and 10 IPv6 addresses.
    public static let attackerKeys = 264

    /// When one key's `n`th try (from 1) comes, counted from its first, when it tries
    /// whenever allowed.
    public static func secondsBeforeTry(_ n: Int) -> Int {
        var elapsed = 0
        var failures = 1
        while failures < n {
            let wait = seconds(PinAttempts.wait(afterFailures: failures))
            if wait == seconds(PinAttempts.longestWait) { return elapsed + wait * (n - failures) }
            elapsed += wait
            failures += 1
        }
        return elapsed
    }

    /// How many tries one key makes within `span` seconds of its first.
    public static func triesPerKey(withinSeconds span: Int) -> Int {
        var tries = 1
        var elapsed = 0
        while true {
            let wait = seconds(PinAttempts.wait(afterFailures: tries))
            if wait == seconds(PinAttempts.longestWait) { return tries + (span - elapsed) / wait }
            guard elapsed + wait <= span else { return tries }
            elapsed += wait
            tries += 1
        }
    }

    public static let secondsPerYear = 365 * 24 * 3600

    /// PINs all `attackerKeys` try in a year.
    public static var triesPerYear: Int { attackerKeys * triesPerKey(withinSeconds: secondsPerYear) }

    /// The chance that a random PIN of `digits` digits is found within a year.
    public static func yearlyChance(digits: Int) -> Double {
        Double(triesPerYear) / pow10(digits)
    }

    /// How long all `attackerKeys` need on average to find a random PIN of `digits` digits:
    /// until they have tried half of the PINs.
    public static func averageSecondsToFind(digits: Int) -> Int {
        let half = pow10(digits) / 2
        let perKey = Int((half / Double(attackerKeys)).rounded(.up))
        return secondsBeforeTry(perKey)
    }

    /// `45 minutes`, `8 hours`, `78 days`, `21 years`: rounded down to the largest unit that
    /// gives at least 2.
    public static func spoken(seconds: Int) -> String {
        let units = [(365 * 24 * 3600, "years"), (24 * 3600, "days"), (3600, "hours"), (60, "minutes")]
        for (size, name) in units where seconds >= 2 * size {
            return "\(seconds / size) \(name)"
        }
        return "\(seconds) seconds"
    }

    private static func pow10(_ digits: Int) -> Double {
        (0..<digits).reduce(1.0) { value, _ in value * 10 }
    }

    private static func seconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds)
    }
}
