import ControlProtocol
import Panels
import Platform
import RoundClockCore
import Synchronization

/// Where the render loop leaves display states for the control socket's server: the
/// current one (for a new subscriber) and, while anyone subscribes, each new one in a queue,
/// then a wake-up of the server's handler (one write(2) to a pipe the event loop's epoll
/// watches; on the same thread, it runs after the render loop's turn). Nothing here waits for the
/// server or for a client: a commit is never delayed by them.
public final class ControlHub: Sendable {
    /// States not yet taken by the server, at most this many (the oldest go first:
    /// only a server stalled for this many display changes loses any).
    static let queueLimit = 1024

    private struct Shared {
        var current: ControlState?
        /// The running program's definition, as the last line that carried one gave it.
        var definition: Program?
        var queued: [ControlState] = []
        var subscribers = 0
        /// `adopt` commands the loop has carried out since the server last looked.
        var adoptsApplied = 0
    }
    private let shared = Mutex(Shared())
    let wake: WakeEvent

    public init() throws(SystemError) {
        wake = try WakeEvent(subject: "control socket")
    }

    /// A new display state (render loop thread); its `definition` is set when the program
    /// changed.
    public func publish(_ state: ControlState) {
        let notify = shared.withLock { s -> Bool in
            if let definition = state.definition { s.definition = definition }
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

    /// The current state with the running program's definition (a subscriber's first line),
    /// and from now on every new one is queued (server).
    func subscribe() -> ControlState? {
        shared.withLock { s in
            s.subscribers += 1
            guard var first = s.current else { return nil }
            first.definition = s.definition
            return first
        }
    }

    func unsubscribe() {
        shared.withLock { $0.subscribers -= 1 }
    }

    /// The loop carried out the oldest `adopt` not yet answered (render loop thread): the
    /// server answers its client `{"ok": true}`, after the state lines before it.
    public func adoptApplied() {
        shared.withLock { $0.adoptsApplied += 1 }
        wake.signal()
    }

    /// The states published since the last call, oldest first, and how many `adopt`s were
    /// carried out since.
    func take() -> (states: [ControlState], adoptsApplied: Int) {
        shared.withLock { s in
            defer {
                s.queued.removeAll(keepingCapacity: true)
                s.adoptsApplied = 0
            }
            return (s.queued, s.adoptsApplied)
        }
    }
}

/// Turns the loop's commits into display states for the hub: the status, the program,
/// the brightness, each panel's text, in the board's order, and the shared session
/// (`share`) and whether it is kept (`persistence`); publishes one when any of them changed,
/// or the program did (compared by value: a program saved over the one shown counts), then
/// with the program's definition. A session change that no commit
/// follows (an `adopt` of the session shown, a pause whose face stays) is published when the
/// loop reports its action, right after the turn's commit.
public final class ControlStateObserver: DisplayObserver {
    private let hub: ControlHub
    private struct Last {
        var order: [PanelRole] = []
        var texts: [PanelRole: String] = [:]
        var state: ControlState?
        var session: SessionShare?
        var persistence: ControlState.Persistence?
        /// The session's program, and whether it changed since the last published state.
        var program: Program?
        var programChanged = false
        /// The status of the turn that last changed the session.
        var status: Status?
    }
    private let last = Mutex(Last())
    /// On every state: the setting the clock could not take (`SetupNotice`), if any.
    private let notice: String?

    public init(hub: ControlHub, notice: String? = nil) {
        self.hub = hub
        self.notice = notice
    }

    /// The session as shared from now on, and its program (the render loop, before its
    /// turn's commit).
    public func share(_ session: SessionShare, status: Status, program: Program) {
        last.withLock {
            $0.session = session
            $0.status = status
            if $0.program != program {
                $0.program = program
                $0.programChanged = true
            }
        }
    }

    /// Whether the session is kept, from now on (`StatePersistence`'s report: at start-up,
    /// then from its worker thread); a change is published at once.
    public func persistence(_ persistence: ControlState.Persistence) {
        let changed = last.withLock { last -> ControlState? in
            last.persistence = persistence
            return last.state == nil ? nil : state(&last, brightness: nil)
        }
        if let changed { hub.publish(changed) }
    }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        let changed = last.withLock { last -> ControlState? in
            for panel in panels {
                if last.texts[panel.role] == nil { last.order.append(panel.role) }
                // The PIN on the panels never leaves the clock: its digits go out as dashes.
                last.texts[panel.role] = face.secret ? String(panel.text.map { $0.isNumber ? "-" : $0 }) : panel.text
            }
            last.status = status
            return state(&last, brightness: panels.first.map { Int($0.brightness) })
        }
        if let changed { hub.publish(changed) }
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        guard case .action(let action) = occurrence else { return }
        if let changed = last.withLock({ $0.state == nil ? nil : state(&$0, brightness: nil) }) { hub.publish(changed) }
        if case .adopt = action { hub.adoptApplied() }
    }

    /// The state from `last`, if it differs from the one published last (then it is that one now).
    private func state(_ last: inout Last, brightness: Int?) -> ControlState? {
        guard let status = last.status else { return nil }
        let state = ControlState(
            state: status.state.rawValue, phase: status.phase.rawValue, round: status.round, rounds: status.rounds,
            program: status.program, brightness: brightness ?? last.state?.brightness ?? 0,
            panels: last.order.map { ControlState.Panel(role: $0.rawValue, text: last.texts[$0] ?? "") }, session: last.session,
            persistence: last.persistence, notice: notice)
        guard state != last.state || last.programChanged else { return nil }
        last.state = state
        guard last.programChanged else { return state }
        last.programChanged = false
        var changed = state
        changed.definition = last.program
        return changed
    }
}
