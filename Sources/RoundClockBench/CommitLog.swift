import Platform
import Panels
import RoundClockCore
import RoundClockService
import Synchronization

/// Collects the commits of one approach. It is also a `DisplayObserver`, so the real
/// `RenderLoop` reports into it directly: the loop reads the clock right after
/// `display.show` returned and passes that instant as `at`.
public final class CommitLog: DisplayObserver {
    private let commits = Mutex([Commit]())
    public init() { commits.withLock { $0.reserveCapacity(4096) } }

    public var all: [Commit] { commits.withLock { $0 } }

    public func record(_ commit: Commit) { commits.withLock { $0.append(commit) } }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        record(Commit(at: t, face: face))
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {}
}

extension CommitLog {
    /// The first commit after index `seen` that satisfies `matches`, polling the log (the
    /// commit instant is recorded by the loop itself, so polling adds nothing to it).
    func commit(after seen: Int, clock: MonotonicClock, timeout: Duration, what: String,
                matches: (Commit) -> Bool) async throws -> Commit {
        let deadline = clock.now.advanced(by: timeout)
        var checked = seen
        while clock.now < deadline {
            let all = self.all
            if let hit = all[checked...].first(where: matches) { return hit }
            checked = all.count
            try await Task.sleep(for: .milliseconds(1))
        }
        throw BenchFailure("\(what): nothing shown within \(timeout)")
    }
}
