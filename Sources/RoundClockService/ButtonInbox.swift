import ControlProtocol
import Platform
import RoundClockCore
import Synchronization

/// Where button edges and control socket commands arrive (from the event loop's handlers,
/// the keyboard of the simulator, tests), in one queue. Posting wakes the render loop at
/// once, even in the middle of a sleep until a far deadline; the loop then drains the
/// events in arrival order.
public final class ButtonInbox<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    /// What the loop is sleeping in, for `post` to cut short.
    private enum Sleeper {
        /// A sleep on the Swift clock, in a task of its own.
        case task(Task<Void, Never>)
        /// A wait that resuming ends (with a timer on the event loop at the deadline, if any).
        case waiter(OnceWaiter)

        func wake() {
            switch self {
            case .task(let task): task.cancel()
            case .waiter(let waiter): waiter.resume()
            }
        }
    }
    private struct State {
        var events: [LoopInput<Instant>] = []
        var sleeper: Sleeper?
    }
    private let state = Mutex(State())

    public init() {}

    public func post(_ event: ButtonEvent<Instant>) {
        post(.button(event))
    }

    /// A control socket command, arrived at `at`: applied by the loop as its button would be.
    public func post(_ command: ControlCommand, at: Instant) {
        post(.command(command, at: at))
    }

    public func post(_ input: LoopInput<Instant>) {
        let sleeper = state.withLock { s -> Sleeper? in
            s.events.append(input)
            return s.sleeper
        }
        sleeper?.wake()
    }

    func drain() -> [LoopInput<Instant>] {
        state.withLock { s in
            defer { s.events.removeAll(keepingCapacity: true) }
            return s.events
        }
    }

    /// Whether no input is waiting.
    var isEmpty: Bool { state.withLock { $0.events.isEmpty } }

    /// Sleeps on `clock` until `deadline` (or, with none, until an event arrives), in a
    /// task of its own; returns early as soon as an event is posted.
    func wait<C: Clock>(until deadline: C.Instant?, on clock: C) async where C.Instant == Instant {
        let sleeper = Task<Void, Never> {
            if let deadline {
                _ = try? await clock.sleep(until: deadline, tolerance: .zero)
            } else {
                // Nothing scheduled: wait for input, re-arming once a year.
                _ = try? await Task.sleep(for: .seconds(365 * 86_400))
            }
        }
        let pending = state.withLock { s -> Bool in
            if s.events.isEmpty { s.sleeper = .task(sleeper); return false }
            return true
        }
        if pending { sleeper.cancel() }
        await withTaskCancellationHandler {
            await sleeper.value
        } onCancel: {
            sleeper.cancel()
        }
        state.withLock { $0.sleeper = nil }
    }

    /// Waits until the waiter is resumed: by a posted event, by cancellation, or by what
    /// `arm` sets up on it (a timer at the deadline, which it cancels on resumption). Called
    /// from a task that prefers an event loop as its executor, whichever ends the wait
    /// resumes the task on that loop's thread.
    func wait(arming arm: (OnceWaiter) -> Void) async {
        let waiter = OnceWaiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.set(continuation)
                arm(waiter)
                let pending = state.withLock { s -> Bool in
                    if s.events.isEmpty { s.sleeper = .waiter(waiter); return false }
                    return true
                }
                if pending { waiter.resume() }
            }
        } onCancel: {
            waiter.resume()
        }
        state.withLock { $0.sleeper = nil }
    }
}
