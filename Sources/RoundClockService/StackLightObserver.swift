import Panels
import RoundClockCore
import Synchronization

/// Decides the stack light from the loop's display attempts (`StackLight(status)`) and hands
/// each change to `show`, which must not block (the hardware posts to its service). The
/// `warning` signal also turns the warning window on at its instant where no display attempt
/// comes then (`[display] cadence = "minutes"`: the picture changes on the minute).
public final class StackLightObserver: DisplayObserver {
    private let show: @Sendable (StackLight) -> Void
    private let state = Mutex((status: Status?.none, shown: StackLight?.none))

    public init(show: @escaping @Sendable (StackLight) -> Void) {
        self.show = show
    }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {}

    public func displayed(_ face: Face, update: DisplayUpdate, status: Status, at t: Duration) {
        follow(status)
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        guard case .signal(.warning, _) = occurrence,
              var status = state.withLock({ $0.status }), status.phase == .work, status.state == .running else { return }
        status.warning = true
        follow(status)
    }

    private func follow(_ status: Status) {
        let light = StackLight(status)
        let changed = state.withLock { s -> Bool in
            s.status = status
            guard s.shown != light else { return false }
            s.shown = light
            return true
        }
        if changed { show(light) }
    }
}
