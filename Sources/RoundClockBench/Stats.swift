/// Order statistics over lateness samples, in microseconds.
///
/// Percentiles use the nearest-rank method on the sorted samples: the p-th percentile
/// is the smallest sample such that at least p % of the samples are at or below it
/// (index `ceil(p/100 * n) - 1`). No interpolation, so every reported number is a
/// latency that was actually measured.
public struct LatencySummary: Sendable, Hashable {
    public let count: Int
    public let p50: Double
    public let p99: Double
    public let max: Double
    public let min: Double

    /// `nil` for no samples.
    public init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        count = sorted.count
        p50 = Self.percentile(sorted, 50)
        p99 = Self.percentile(sorted, 99)
        max = sorted[sorted.count - 1]
        min = sorted[0]
    }

    /// Nearest-rank percentile of already sorted, non-empty samples; `p` in 0...100.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        precondition(!sorted.isEmpty, "percentile of no samples")
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]
    }
}

/// `baseline / ours`, formatted like `27.3x`; `-` when ours is not positive (in
/// virtual time our lateness is exactly 0 and no ratio exists).
public func ratio(_ baseline: Double, _ ours: Double) -> String {
    guard ours > 0, baseline.isFinite else { return "-" }
    return fixed(baseline / ours, 1) + "x"
}

/// Microseconds in a `Duration`, as a `Double`.
public func micros(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
}

/// `x` with exactly `decimals` digits after the point (no Foundation).
public func fixed(_ x: Double, _ decimals: Int) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(x) * scale).rounded()
    let whole = Int64(scaled / scale)
    let frac = Int64(scaled - Double(whole) * scale)
    let sign = x < 0 && scaled != 0 ? "-" : ""
    guard decimals > 0 else { return sign + "\(whole)" }
    let digits = String(frac)
    return sign + "\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
}

/// Right-aligns `s` in `width` columns (left-aligns with `left`).
func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
    s.count >= width ? s : left ? s + String(repeating: " ", count: width - s.count) : String(repeating: " ", count: width - s.count) + s
}
