import Synchronization

/// A clock for simulations that jumps straight to each deadline instead of waiting:
/// `sleep(until:)` moves `now` to the deadline and returns at once. With a single
/// sleeper (the render loop, which folds scripted inputs into its deadline) a
/// 47-minute session runs in milliseconds with exact instants.
public final class VirtualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable, Hashable {
        /// Time since the simulation started.
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let current: Mutex<Instant>

    public init(start: Instant = Instant(offset: .zero)) { current = Mutex(start) }

    public var now: Instant { current.withLock { $0 } }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { if $0 < deadline { $0 = deadline } }
    }

    /// Moves time forward by hand (tests).
    public func advance(by duration: Duration) {
        current.withLock { $0 = $0.advanced(by: max(duration, .zero)) }
    }
}
