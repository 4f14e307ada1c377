/// Rate limit of PIN attempts (docs/remote.md): a client (its IP address) gets
/// `perClient` wrong PINs per `window`; after that every login from it is refused (HTTP 429
/// with `Retry-After`) until its oldest failure leaves the window. All clients together get
/// `overall` wrong PINs per window, so many addresses cannot multiply the guessing rate.
/// A right PIN clears the client's failures. With a 6-digit PIN and these numbers, guessing
/// it takes on average 500,000 tries / 20 per minute = 17 days of continuous attack.
public struct PinAttempts: Sendable {
    public static let perClient = 5
    public static let overall = 20
    public static let window = Duration.seconds(60)
    /// Clients remembered at once; the longest-quiet ones are forgotten first.
    public static let trackedClients = 4096

    public enum Decision: Equatable, Sendable {
        case allowed
        /// Refused without looking at the PIN; try again after this many seconds.
        case limited(retryAfterSeconds: Int)
    }

    private var failures: [String: [ContinuousClock.Instant]] = [:]
    private var all: [ContinuousClock.Instant] = []
    private var lastSweep: ContinuousClock.Instant?

    public init() {}

    /// Whether `client` may try a PIN now.
    public mutating func check(client: String, now: ContinuousClock.Instant) -> Decision {
        forgetOld(now: now)
        let mine = recent(client, now: now)
        if mine.count >= Self.perClient, let oldest = mine.first {
            return .limited(retryAfterSeconds: seconds(until: oldest + Self.window, now: now))
        }
        if all.count >= Self.overall, let oldest = all.first {
            return .limited(retryAfterSeconds: seconds(until: oldest + Self.window, now: now))
        }
        return .allowed
    }

    public mutating func recordFailure(client: String, now: ContinuousClock.Instant) {
        if failures[client] == nil, failures.count >= Self.trackedClients {
            let quietest = failures.min { ($0.value.last ?? now) < ($1.value.last ?? now) }?.key
            if let quietest { failures[quietest] = nil }
        }
        failures[client] = recent(client, now: now) + [now]
        all.append(now)
    }

    /// How many clients are remembered.
    public var trackedCount: Int { failures.count }

    public mutating func recordSuccess(client: String) {
        failures[client] = nil
    }

    /// Drops failures older than the window: the overall list at each check (it holds at
    /// most `overall` + a few), the clients' lists in one sweep per window, so a check costs
    /// the same however many clients are remembered.
    private mutating func forgetOld(now: ContinuousClock.Instant) {
        all.removeAll { $0 + Self.window <= now }
        guard lastSweep.map({ $0 + Self.window <= now }) ?? true else { return }
        lastSweep = now
        for (client, times) in failures {
            let kept = times.filter { $0 + Self.window > now }
            failures[client] = kept.isEmpty ? nil : kept
        }
    }

    private func recent(_ client: String, now: ContinuousClock.Instant) -> [ContinuousClock.Instant] {
        (failures[client] ?? []).filter { $0 + Self.window > now }
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
