import Synchronization

/// A clock for simulations that jumps straight to each deadline instead of waiting:
/// `sleep(until:)` moves `now` to the deadline and returns at once. With a single
/// sleeper (the render loop, which folds scripted inputs into its deadline) a
/// 47-minute session runs in milliseconds with exact instants. Actions scheduled with
/// `at(_:perform:)` run while a sleep passes their instant, with `now` at that instant:
/// something that happens while the loop sleeps (a chip losing power, in tests).
public final class VirtualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable, Hashable {
        /// Time since the simulation started.
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Scheduled {
        var at: Instant
        var action: @Sendable () async -> Void
    }
    private let current: Mutex<Instant>
    private let scheduled = Mutex<[Scheduled]>([])

    public init(start: Instant = Instant(offset: .zero)) { current = Mutex(start) }

    public var now: Instant { current.withLock { $0 } }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        while let next = takeScheduled(dueBy: deadline) {
            current.withLock { if $0 < next.at { $0 = next.at } }
            await next.action()
        }
        current.withLock { if $0 < deadline { $0 = deadline } }
    }

    /// Runs `action` once a sleep reaches `instant` (in order of instants, then of calls).
    public func at(_ instant: Instant, perform action: @escaping @Sendable () async -> Void) {
        scheduled.withLock { $0.append(Scheduled(at: instant, action: action)) }
    }

    private func takeScheduled(dueBy deadline: Instant) -> Scheduled? {
        scheduled.withLock { list in
            guard let index = list.indices.filter({ list[$0].at <= deadline }).min(by: { list[$0].at < list[$1].at })
            else { return nil }
            return list.remove(at: index)
        }
    }

    /// Moves time forward by hand (tests).
    public func advance(by duration: Duration) {
        current.withLock { $0 = $0.advanced(by: max(duration, .zero)) }
    }
}
