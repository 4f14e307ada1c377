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
        /// A wait on the event loop (a timer at the deadline, if any).
        case loop(OnceWaiter)

        func wake() {
            switch self {
            case .task(let task): task.cancel()
            case .loop(let waiter): waiter.resume()
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

    /// Sleeps on `clock` until `deadline` (or, with none, until an event arrives);
    /// returns early as soon as an event is posted.
    func wait<C: Clock>(until deadline: C.Instant?, on clock: C) async where C.Instant == Instant {
        // A `VirtualClock` sleep jumps to the deadline at once: there is nothing for `post` to
        // cut short, so no sleeper task (its creation, scheduling and completion would be most
        // of a virtual turn's cost). An event already waiting ends the wait before the sleep.
        if let deadline, let virtual = clock as? VirtualClock, let instant = deadline as? VirtualClock.Instant {
            guard state.withLock({ $0.events.isEmpty }) else { return }
            _ = try? await virtual.sleep(until: instant, tolerance: .zero)
            return
        }
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

    /// Waits on `loop` until `deadline` (a CLOCK_MONOTONIC reading: a timer on the loop;
    /// nil: until an event arrives); returns early as soon as an event is posted or the task
    /// is cancelled. Called from a task that prefers `loop` as its executor, so whichever
    /// ends the wait resumes the task on the loop's thread.
    func wait(untilMonotonic deadline: Duration?, on loop: EventLoop) async {
        let waiter = OnceWaiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.set(continuation)
                if let deadline {
                    let timer = loop.schedule(atMonotonic: deadline) { waiter.resume() }
                    waiter.onResume { loop.cancel(timer) }
                }
                let pending = state.withLock { s -> Bool in
                    if s.events.isEmpty { s.sleeper = .loop(waiter); return false }
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
