import ControlProtocol
import Panels
import Platform
import RoundClockCore
import Synchronization

/// Where the render loop's thread leaves display states for the control socket's thread:
/// the current one (for a new subscriber) and, while anyone subscribes, each new one in a
/// queue, then a wake-up of the socket thread's poll(2) (one eventfd write(2)). Nothing
/// here waits for the socket thread or for a client: a commit is never delayed by them.
public final class ControlHub: Sendable {
    /// States not yet taken by the socket thread, at most this many (the oldest go first:
    /// only a socket thread stalled for this many display changes loses any).
    static let queueLimit = 1024

    private struct Shared {
        var current: ControlState?
        var queued: [ControlState] = []
        var subscribers = 0
        var stopping = false
    }
    private let shared = Mutex(Shared())
    let wake: WakeEvent

    public init() throws(SystemError) {
        wake = try WakeEvent(subject: "control socket")
    }

    /// A new display state (render loop thread).
    public func publish(_ state: ControlState) {
        let notify = shared.withLock { s -> Bool in
            s.current = state
            guard s.subscribers > 0 else { return false }
            if s.queued.count >= Self.queueLimit { s.queued.removeFirst() }
            s.queued.append(state)
            return true
        }
        if notify { wake.signal() }
    }

    /// Subscribers connected now.
    public var subscriberCount: Int { shared.withLock { $0.subscribers } }

    /// The state of the last display change.
    var current: ControlState? { shared.withLock { $0.current } }

    /// The current state, and from now on every new one is queued (socket thread).
    func subscribe() -> ControlState? {
        shared.withLock { s in
            s.subscribers += 1
            return s.current
        }
    }

    func unsubscribe() {
        shared.withLock { $0.subscribers -= 1 }
    }

    /// The states published since the last call, oldest first, and whether to stop.
    func take() -> (states: [ControlState], stopping: Bool) {
        shared.withLock { s in
            defer { s.queued.removeAll(keepingCapacity: true) }
            return (s.queued, s.stopping)
        }
    }

    /// Asks the socket thread to close everything and end.
    func stop() {
        shared.withLock { $0.stopping = true }
        wake.signal()
    }
}

/// Turns the loop's commits into display states for the hub: the status, the program,
/// the brightness and each panel's text, in the board's order; publishes one when any of
/// them changed.
public final class ControlStateObserver: LoopObserver {
    private let hub: ControlHub
    private let last = Mutex<(order: [PanelRole], texts: [PanelRole: String], state: ControlState?)>(([], [:], nil))

    public init(hub: ControlHub) { self.hub = hub }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        let changed = last.withLock { last -> ControlState? in
            for panel in panels {
                if last.texts[panel.role] == nil { last.order.append(panel.role) }
                last.texts[panel.role] = panel.text
            }
            let state = ControlState(
                state: status.state.rawValue, phase: status.phase.rawValue, round: status.round, rounds: status.rounds,
                program: status.program, brightness: Int(panels.first?.brightness ?? UInt8(last.state?.brightness ?? 0)),
                panels: last.order.map { ControlState.Panel(role: $0.rawValue, text: last.texts[$0] ?? "") })
            guard state != last.state else { return nil }
            last.state = state
            return state
        }
        if let changed { hub.publish(changed) }
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {}
}
