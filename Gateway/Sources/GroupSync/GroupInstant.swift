/// The range every instant of the group's messages is held to, and arithmetic on instants
/// that cannot trap. Group time reads like a wall time (nanoseconds since 1970) and the
/// monotonic clocks count from boot, so both lie in `0...maximum`; any sum or difference of
/// two such instants fits in an `Int64`, and the saturating helpers keep derived values
/// (an estimate's offset carried along its slope) from trapping on any input.
public enum GroupInstant {
    /// 4 × 10^18 ns: the year 2096 as a wall time, 126 years of uptime as a monotonic reading.
    public static let maximum: Int64 = 4_000_000_000_000_000_000
    /// The longest a reference may take between an ask's arrival and its answer.
    public static let longestTurnaround: Int64 = 1_000_000_000

    public static func contains(_ instant: Int64) -> Bool { (0...maximum).contains(instant) }

    /// `instant` pulled into `0...maximum`.
    public static func clamped(_ instant: Int64) -> Int64 { min(max(instant, 0), maximum) }

    /// `a + b`, or the nearest `Int64` when the sum does not fit.
    public static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : value
    }

    /// `a - b`, or the nearest `Int64` when the difference does not fit.
    public static func difference(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (b < 0 ? .max : .min) : value
    }

    /// `value` rounded to the nearest `Int64`, saturating (NaN gives 0).
    public static func rounded(_ value: Double) -> Int64 {
        guard value.isFinite else { return value.isNaN ? 0 : (value > 0 ? .max : .min) }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value.rounded())
    }
}
