import RoundClockCore
import Synchronization

/// Fans loop reports out to several observers.
public struct Observers: LoopObserver {
    public let members: [any LoopObserver]
    public init(members: [any LoopObserver]) { self.members = members }
    public func committed(_ face: Face, previous: Face?, status: Status, at t: Duration) {
        for member in members { member.committed(face, previous: previous, status: status, at: t) }
    }
    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        for member in members { member.occurred(occurrence, at: t) }
    }
}

/// Counts panel changes and signals (for summaries and tests).
public final class FrameCounter: LoopObserver {
    private let counts = Mutex((frames: 0, signals: 0))
    public init() {}
    public var frames: Int { counts.withLock { $0.frames } }
    public var signals: Int { counts.withLock { $0.signals } }
    public func committed(_ face: Face, previous: Face?, status: Status, at t: Duration) {
        let changed = PanelRole.allCases.filter { previous?[$0] != face[$0] }.count
        counts.withLock { $0.frames += changed }
    }
    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        if case .signal = occurrence { counts.withLock { $0.signals += 1 } }
    }
}
