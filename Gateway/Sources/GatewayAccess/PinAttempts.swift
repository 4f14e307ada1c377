/// The back-off of PIN attempts (docs/remote.md), per key: a client's `AddressKey` or a known
/// phone's `device:` key. A key gets `freeFailures` wrong PINs in a row at once (typos); after
/// that each try waits `wait(afterFailures:)`: 30 s after the 5th failure, then twice as long
/// after each further one, at most 1 h. While a key waits, its logins are refused (HTTP 429
/// with `Retry-After`) without looking at the PIN. A right PIN clears the key; a key without a
/// wrong PIN for `forgetAfter` is forgotten. Keys never affect each other: there is no
/// overall cap, so no number of guessing addresses can lock out another one.
public struct PinAttempts: Sendable {
    public static let freeFailures = 5
    public static let firstWait = Duration.seconds(30)
    public static let longestWait = Duration.seconds(3600)
    public static let forgetAfter = Duration.seconds(24 * 3600)
    /// Keys remembered at once; beyond it, the key whose last failure is oldest is forgotten.
    public static let trackedKeys = 4096

    public enum Decision: Equatable, Sendable {
        case allowed
        /// Refused without looking at the PIN; try again after this many seconds.
        case limited(retryAfterSeconds: Int)
    }

    /// One key's wrong PINs in a row and when the last one came.
    private struct Streak {
        var failures: Int
        var last: ContinuousClock.Instant
    }

    private var streaks: [String: Streak] = [:]
    private var lastSweep: ContinuousClock.Instant?

    public init() {}

    /// The wait before the next try after `failures` wrong PINs in a row: none for the first
    /// `freeFailures`, then `firstWait` doubled per further failure, at most `longestWait`.
    public static func wait(afterFailures failures: Int) -> Duration {
        guard failures >= freeFailures else { return .zero }
        var wait = firstWait
        for _ in freeFailures..<failures {
            wait *= 2
            if wait >= longestWait { return longestWait }
        }
        return min(wait, longestWait)
    }

    /// Whether `client` may try a PIN now.
    public mutating func check(client: String, now: ContinuousClock.Instant) -> Decision {
        sweep(now: now)
        guard let streak = live(client, now: now) else { return .allowed }
        let next = streak.last + Self.wait(afterFailures: streak.failures)
        guard now < next else { return .allowed }
        return .limited(retryAfterSeconds: seconds(until: next, now: now))
    }

    /// Counts a wrong PIN; returns how many `client` has given in a row, this one included.
    @discardableResult
    public mutating func recordFailure(client: String, now: ContinuousClock.Instant) -> Int {
        let failures = (live(client, now: now)?.failures ?? 0) + 1
        if streaks[client] == nil, streaks.count >= Self.trackedKeys {
            let oldest = streaks.min { $0.value.last < $1.value.last }?.key
            if let oldest { streaks[oldest] = nil }
        }
        streaks[client] = Streak(failures: failures, last: now)
        return failures
    }

    public mutating func recordSuccess(client: String) {
        streaks[client] = nil
    }

    /// How many keys are remembered.
    public var trackedCount: Int { streaks.count }

    /// The key's streak, unless it is older than `forgetAfter`.
    private func live(_ client: String, now: ContinuousClock.Instant) -> Streak? {
        guard let streak = streaks[client], now < streak.last + Self.forgetAfter else { return nil }
        return streak
    }

    /// Drops forgotten keys, once per `longestWait`, so a check costs the same however many
    /// keys are remembered.
    private mutating func sweep(now: ContinuousClock.Instant) {
        guard lastSweep.map({ $0 + Self.longestWait <= now }) ?? true else { return }
        lastSweep = now
        streaks = streaks.filter { now < $0.value.last + Self.forgetAfter }
    }

    private func seconds(until instant: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Int {
        let left = now.duration(to: instant).components
        return max(1, Int(left.seconds) + (left.attoseconds > 0 ? 1 : 0))
    }
}

/// Compares two PINs in time that depends only on their lengths, not on where they differ.
public func pinsMatch(_ given: String, _ expected: String) -> Bool {
    let a = Array(given.utf8), b = Array(expected.utf8)
    var difference = UInt8(a.count == b.count ? 0 : 1)
    for index in 0..<max(a.count, b.count) {
        difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
    }
    return difference == 0
}
