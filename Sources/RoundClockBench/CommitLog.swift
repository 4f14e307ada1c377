import Panels
import RoundClockCore
import RoundClockService
import Synchronization

/// Collects the commits of one approach. It is also a `LoopObserver`, so the real
/// `RenderLoop` reports into it directly: the loop reads the clock right after
/// `display.show` returned and passes that instant as `at`.
public final class CommitLog: LoopObserver {
    private let commits = Mutex([Commit]())
    public init() { commits.withLock { $0.reserveCapacity(4096) } }

    public var all: [Commit] { commits.withLock { $0 } }

    public func record(_ commit: Commit) { commits.withLock { $0.append(commit) } }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        record(Commit(at: t, face: face))
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {}
}
