/// How a member logs the group-time messages it refuses (malformed round trips and
/// presences), pure: the first `linesPerMinute` of a minute get a line each, the rest are
/// counted and summed up in one line once the minute is over. Any client of the broker can
/// send such messages without end; the journal gets a bounded number of lines for them.
public struct RefusalLog: Sendable, Hashable {
    public static let linesPerMinute = 10
    public static let minute: Int64 = 60_000_000_000

    /// Where the current minute began (local ns), and what it logged and counted.
    private var minuteStart: Int64?
    private var logged = 0
    private var unlogged = 0

    public init() {}

    /// A refusal at local instant `now`: whether it gets a line of its own.
    public mutating func refused(at now: Int64) -> Bool {
        if let start = minuteStart, now - start < Self.minute {
            guard logged < Self.linesPerMinute else {
                unlogged += 1
                return false
            }
            logged += 1
            return true
        }
        // A new minute; what the last one counted stays for `summary`.
        minuteStart = now
        logged = 1
        return true
    }

    /// At local instant `now`: how many refusals went unlogged, once the minute they fell in
    /// is over (then counting starts afresh), else `nil`.
    public mutating func summary(at now: Int64) -> Int? {
        guard unlogged > 0, let start = minuteStart, now - start >= Self.minute else { return nil }
        defer { unlogged = 0 }
        return unlogged
    }
}
