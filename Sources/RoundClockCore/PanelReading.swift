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
