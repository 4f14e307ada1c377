/// Time-value semantics re-implemented from Apple's date/timer format styles, on any
/// monotonic instant type. Each returns the `Duration` a display should show; the
/// fixed-position rendering is `PanelTime`.
public enum TimerFormat {
    /// A timer counting down over `range`: the whole duration before `lowerBound`,
    /// `upperBound - now` inside it, zero at or after `upperBound`.
    public static func timer<I: InstantProtocol>(_ range: Range<I>, at now: I) -> Duration where I.Duration == Duration {
        if now < range.lowerBound { return range.lowerBound.duration(to: range.upperBound) }
        if now >= range.upperBound { return .zero }
        return now.duration(to: range.upperBound)
    }

    /// A stopwatch started at `start`: `now - start`, zero before `start`.
    public static func stopwatch<I: InstantProtocol>(from start: I, at now: I) -> Duration where I.Duration == Duration {
        max(.zero, start.duration(to: now))
    }

    /// Signed difference `now - target`: negative while the target is in the future,
    /// positive after it ("overtime").
    public static func offset<I: InstantProtocol>(to target: I, at now: I) -> Duration where I.Duration == Duration {
        target.duration(to: now)
    }

    /// Unsigned difference between `now` and `target`.
    public static func relative<I: InstantProtocol>(to target: I, at now: I) -> Duration where I.Duration == Duration {
        let d = target.duration(to: now)
        return d < .zero ? .zero - d : d
    }
}

/// The resolution worth showing, as a view's refresh cadence: `minutes` hides seconds,
/// `seconds` is the normal gym display, `live` adds hundredths below one minute.
public enum Cadence: String, Sendable, Hashable, CaseIterable {
    case live, seconds, minutes
}

/// What a four-digit time panel shows, and for how long it stays that way if time
/// keeps flowing in the same direction.
public struct PanelReading: Sendable, Hashable {
    /// Panel text: one character per digit position, `:` when the colon is lit,
    /// `.` after a digit whose point is lit.
    public var text: String
    /// Time until the text changes (always > 0); `nil` if it never will (a countdown at 0).
    public var changesIn: Duration?
}
