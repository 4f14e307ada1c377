/// What one approach did in a run, measured against the ideal `Timeline`.
public struct ApproachResult: Sendable {
    public var name: String
    /// Lateness of every change after the initial face (commit instant - ideal instant), µs.
    public var lateness: LatencySummary?
    /// Lateness of the first and the last change, µs: their difference is the drift.
    public var first: Double?
    public var last: Double?
    /// Displayed values the panel was behind the true one at the check instant (0: correct).
    public var behindAtEnd: Int
    public var wakeUpsPerSecond: Double
    public var commits: Int

    /// Measures `commits` against `timeline`; `checkAt` is the instant (from the anchor,
    /// mid-second) at which the shown value is compared with the true one.
    public init(name: String, commits: [Commit], timeline: Timeline, checkAt: Duration, wakeUps: Int, over duration: Duration) {
        self.name = name
        let matched = timeline.lateness(of: commits)
        let changes = matched.filter { $0.index > 0 }.map { micros($0.lateness) }
        lateness = LatencySummary(changes)
        first = changes.first
        last = changes.last
        let shown = matched.last { timeline.entries[$0.index].at + $0.lateness <= checkAt }?.index ?? 0
        behindAtEnd = timeline.index(at: checkAt) - shown
        wakeUpsPerSecond = Double(wakeUps) / (micros(duration) / 1e6)
        self.commits = commits.count
    }

    /// Lateness of the last change minus that of the first, µs.
    public var drift: Double? { first.flatMap { f in last.map { $0 - f } } }

    static let header = pad("approach", 24, left: true) + pad("changes", 8) + pad("p50 µs", 11) + pad("p99 µs", 11)
        + pad("max µs", 11) + pad("wake-ups/s", 11) + pad("drift µs", 12) + "  shown at end"

    var row: String {
        pad(name, 24, left: true) + pad("\(lateness?.count ?? 0)", 8) + pad(lateness.map { fixed($0.p50, 0) } ?? "-", 11)
            + pad(lateness.map { fixed($0.p99, 0) } ?? "-", 11) + pad(lateness.map { fixed($0.max, 0) } ?? "-", 11)
            + pad(fixed(wakeUpsPerSecond, 2), 11) + pad(drift.map { fixed($0, 0) } ?? "-", 12)
            + "  " + (behindAtEnd == 0 ? "true value" : "\(behindAtEnd) s behind")
    }
}

/// Table rows for several approaches plus ratio lines (each baseline / the first row).
func table(_ results: [ApproachResult]) -> String {
    var lines = [ApproachResult.header] + results.map(\.row)
    if let ours = results.first?.lateness {
        for baseline in results.dropFirst() {
            guard let b = baseline.lateness else { continue }
            lines.append("ratio \(baseline.name) / \(results[0].name): p50 \(ratio(b.p50, ours.p50)), p99 \(ratio(b.p99, ours.p99)), max \(ratio(b.max, ours.max))"
                + ", wake-ups \(ratio(baseline.wakeUpsPerSecond, results[0].wakeUpsPerSecond))")
        }
    }
    return lines.joined(separator: "\n")
}
