/// When a view refreshes: a sequence of instants, asked one at a time. Modelled on
/// Apple's timeline schedules (every minute, periodic, explicit, custom).
public protocol RefreshSchedule<Instant>: Sendable {
    associatedtype Instant: InstantProtocol where Instant.Duration == Duration
    /// The first entry strictly after `instant`, or `nil` if there is none.
    func next(after instant: Instant) -> Instant?
}

/// Local wall time as a duration since 1970-01-01 00:00 *local* time (UTC plus the
/// zone's offset). Used only for clock mode and scheduling, never for countdowns.
public struct WallTime: InstantProtocol, Sendable, Hashable {
    public var sinceEpoch: Duration
    public init(sinceEpoch: Duration) { self.sinceEpoch = sinceEpoch }
    public init(hour: Int, minute: Int, second: Int = 0, day: Int = 0) {
        sinceEpoch = .seconds(((day * 24 + hour) * 60 + minute) * 60 + second)
    }
    /// Time since local midnight.
    public var timeOfDay: Duration { sinceEpoch.positiveRemainder(dividingBy: .seconds(86_400)) }
    public func advanced(by duration: Duration) -> WallTime { WallTime(sinceEpoch: sinceEpoch + duration) }
    public func duration(to other: WallTime) -> Duration { other.sinceEpoch - sinceEpoch }
    public static func < (a: WallTime, b: WallTime) -> Bool { a.sinceEpoch < b.sinceEpoch }
}

/// Every minute, on the minute of local wall time.
public struct EveryMinuteSchedule: RefreshSchedule {
    public init() {}
    public func next(after instant: WallTime) -> WallTime? {
        let minute = Duration.seconds(60)
        return WallTime(sinceEpoch: minute * (instant.sinceEpoch.floorDivided(by: minute) + 1))
    }
}

/// `start`, `start + interval`, `start + 2·interval`, ...
public struct PeriodicSchedule<Instant: InstantProtocol & Sendable>: RefreshSchedule where Instant.Duration == Duration {
    public var start: Instant
    public var interval: Duration
    /// `interval` must be positive.
    public init(from start: Instant, by interval: Duration) {
        self.start = start
        self.interval = interval > .zero ? interval : .nanoseconds(1)
    }
    public func next(after instant: Instant) -> Instant? {
        if instant < start { return start }
        let steps = start.duration(to: instant).floorDivided(by: interval) + 1
        return start.advanced(by: interval * steps)
    }
}

/// An explicit list of instants: the class start times of day around a wall time
/// (`ClassStarts`, `start_at`).
public struct ExplicitSchedule<Instant: InstantProtocol & Sendable>: RefreshSchedule where Instant.Duration == Duration {
    public let instants: [Instant]
    public init(_ instants: some Sequence<Instant>) { self.instants = instants.sorted() }
    public func next(after instant: Instant) -> Instant? {
        var low = 0
        var high = instants.count
        while low < high {
            let mid = (low + high) / 2
            if instants[mid] <= instant { low = mid + 1 } else { high = mid }
        }
        return low < instants.count ? instants[low] : nil
    }
}
