/// How a member's gateway keeps the running round on its clock where group time puts it
/// (docs/sync.md "Drift"), pure. The clock holds the round's anchor at a local (monotonic)
/// instant; when group time maps it elsewhere by more than `threshold`, the clock is handed
/// the round again with the anchor moved:
/// - toward the target by at most `slewStep` per `interval` (1 %, a rate the eye does not
///   see), each move landing `window` into a tenth of the round's time, so no tenth is shown
///   twice or skipped and no bell rings again;
/// - or, when the clock is behind by more than `stepForwardAbove`, forward at once: what lies
///   in between is skipped (and logged), nothing is shown twice.
/// Never in the round's first `afterStart`, where an adopt would ring its start again.
public enum SessionRemap {
    public static let threshold: Int64 = 1_000_000
    public static let interval: Int64 = 1_000_000_000
    public static let slewStep: Int64 = 10_000_000
    public static let stepForwardAbove: Int64 = 1_000_000_000
    /// The panels change on tenths of the round's time at the finest.
    public static let grid: Int64 = 100_000_000
    public static let window: ClosedRange<Int64> = 30_000_000...70_000_000
    public static let afterStart: Int64 = 2_000_000_000

    public enum Move: Sendable, Hashable {
        /// Move the anchor by `by` (local ns; negative: the round moves forward) within the tenth.
        case slew(by: Int64)
        /// Move the anchor `by` at once (always negative: forward).
        case step(by: Int64)

        public var by: Int64 {
            switch self {
            case .slew(let by), .step(let by): by
            }
        }
    }

    /// The move for a clock that holds the anchor at `held` where group time puts it at
    /// `target`, or `nil` when they are within `threshold`.
    public static func move(held: Int64, target: Int64) -> Move? {
        let offBy = GroupInstant.difference(target, held)
        guard offBy.magnitude > UInt64(threshold) else { return nil }
        if offBy < -stepForwardAbove { return .step(by: offBy) }
        return .slew(by: min(max(offBy, -slewStep), slewStep))
    }

    /// How long after local instant `now` the clock's running time (`elapsedBefore` plus the
    /// time since the anchor it holds at `held`) next lies `window` into a tenth: 0 for now,
    /// `nil` while the round is in its first `afterStart` (or its anchor lies ahead).
    public static func wait(elapsedBefore: Int64, held: Int64, now: Int64) -> Int64? {
        let since = GroupInstant.difference(now, held)
        guard since >= afterStart else { return nil }
        let phase = GroupInstant.sum(elapsedBefore % grid, since % grid) % grid
        if window.contains(phase) { return 0 }
        let centre = (window.lowerBound + window.upperBound) / 2
        return (centre - phase + grid) % grid
    }
}
