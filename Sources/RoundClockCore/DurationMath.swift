/// Exact integer arithmetic on `Duration`, done in attoseconds (`Int128`), so that
/// quantisation never suffers from floating-point rounding. Counts that do not fit an
/// `Int64` (only beyond 292 billion years of seconds) saturate instead of trapping.
extension Duration {
    /// Attoseconds in one second.
    static let attosPerSecond: Int128 = 1_000_000_000_000_000_000

    /// `seconds` whole seconds: the same as `.seconds(1) * seconds`, without the standard
    /// library's unspecialized generic `*` (every face).
    static func wholeSeconds(_ seconds: Int64) -> Duration {
        Duration(attoseconds: Int128(seconds) * attosPerSecond)
    }

    /// Whole nanoseconds, truncated towards zero and clamped to `Int64`: the one
    /// Duration → nanoseconds conversion (state file, kernel timestamps, debounce).
    public var wholeNanoseconds: Int64 {
        Int64(clamping: attoseconds / 1_000_000_000)
    }

    /// Whole milliseconds, truncated towards zero and clamped to `Int64`.
    public var wholeMilliseconds: Int64 {
        Int64(clamping: attoseconds / 1_000_000_000_000_000)
    }

    /// Whole seconds, rounded towards minus infinity.
    public var floorSeconds: Int64 {
        Int64(clamping: Self.floorDivide(attoseconds, Self.attosPerSecond))
    }

    /// Whole seconds, rounded towards plus infinity: what a countdown shows.
    public var ceilSeconds: Int64 {
        Int64(clamping: Self.ceilDivide(attoseconds, Self.attosPerSecond))
    }

    /// How many whole `step`s fit into `self` (floor division). `step` must be positive.
    public func floorDivided(by step: Duration) -> Int64 {
        Int64(clamping: Self.floorDivide(attoseconds, step.attoseconds))
    }

    /// `self / step` rounded up. `step` must be positive.
    public func ceilDivided(by step: Duration) -> Int64 {
        Int64(clamping: Self.ceilDivide(attoseconds, step.attoseconds))
    }

    /// `self` modulo `step`, always in `0 ..< step`. `step` must be positive.
    public func positiveRemainder(dividingBy step: Duration) -> Duration {
        let r = attoseconds % step.attoseconds
        return Duration(attoseconds: r < 0 ? r + step.attoseconds : r)
    }

    static func floorDivide(_ a: Int128, _ b: Int128) -> Int128 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func ceilDivide(_ a: Int128, _ b: Int128) -> Int128 {
        let q = a / b
        return (a % b != 0 && (a < 0) == (b < 0)) ? q + 1 : q
    }

    /// Seconds with exactly `decimals` digits after the point, truncated towards zero,
    /// e.g. `12.000` — the `t` field of the frames file.
    public func formattedSeconds(decimals: Int) -> String {
        var scale: Int128 = 1
        for _ in 0..<decimals { scale *= 10 }
        let units = attoseconds / (Self.attosPerSecond / scale)
        let negative = units < 0
        let magnitude = negative ? -units : units
        let whole = magnitude / scale
        var fraction = String(magnitude % scale)
        while fraction.count < decimals { fraction = "0" + fraction }
        return (negative ? "-" : "") + String(whole) + (decimals > 0 ? "." + fraction : "")
    }
}

extension Duration {
    /// `m:ss`, or `h:mm:ss` at one hour or more; sub-second parts are dropped.
    /// Used in listings and messages, not on the LED panels.
    public var clockNotation: String {
        let total = floorSeconds
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):\(m < 10 ? "0" : "")\(m):\(ss)" }
        return "\(m):\(ss)"
    }
}
