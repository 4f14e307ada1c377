import Panels
import RoundClockCore
import Synchronization

/// Fans loop reports out to several observers.
public struct Observers: LoopObserver {
    public let members: [any LoopObserver]
    public init(members: [any LoopObserver]) { self.members = members }
    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        for member in members { member.committed(face, panels: panels, status: status, at: t) }
    }
    public func displayed(_ face: Face, update: DisplayUpdate, status: Status, at t: Duration) {
        for member in members { member.displayed(face, update: update, status: status, at: t) }
    }
    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        for member in members { member.occurred(occurrence, at: t) }
    }
}

/// Counts panel changes, time-panel changes and signals (for summaries and tests).
public final class FrameCounter: LoopObserver {
    private let counts = Mutex((frames: 0, timeChanges: 0, signals: 0, last: [PanelRole: PanelReadout]()))
    public init() {}
    public var frames: Int { counts.withLock { $0.frames } }
    /// Changes of the time panel: the displayed seconds.
    public var timeChanges: Int { counts.withLock { $0.timeChanges } }
    public var signals: Int { counts.withLock { $0.signals } }
    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        counts.withLock { c in
            for panel in panels where c.last[panel.role] != panel {
                c.frames += 1
                if panel.role == .time { c.timeChanges += 1 }
                c.last[panel.role] = panel
            }
        }
    }
    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        if case .signal = occurrence { counts.withLock { $0.signals += 1 } }
    }
}
