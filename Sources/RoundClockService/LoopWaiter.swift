import Platform

/// How the render loop waits between turns: until its next deadline or until an input
/// arrives, whichever comes first. Chosen once, where the clock is put together (the event
/// loop for real time, `VirtualTimeWaiter` for a simulation in virtual time,
/// `ClockSleepWaiter` for a test clock), and handed to the loop, which never asks which.
public protocol LoopWaiter: Sendable {
    associatedtype WaitClock: Clock & Sendable where WaitClock.Duration == Duration, WaitClock.Instant: Sendable
    /// The clock the loop reads `now` from and whose instants it waits for.
    var clock: WaitClock { get }
    /// Runs the whole loop, `body`, where its waits resume (the event loop's thread).
    func running<T>(_ body: () async -> T) async -> T
    /// Returns at `deadline` (nil: none), as soon as `inbox` holds an input, or once the
    /// task is cancelled.
    func wait(until deadline: WaitClock.Instant?, for inbox: ButtonInbox<WaitClock.Instant>) async
}

/// Real time on an event loop: the loop runs on its thread (the task prefers it as its
/// executor) and sleeps in its epoll_wait, on a timerfd armed at the deadline's
/// CLOCK_MONOTONIC reading, so a display change wakes that one thread once.
public struct EventLoopWaiter<WaitClock: MonotonicDeadlineClock & Sendable>: LoopWaiter where WaitClock.Instant: Sendable {
    public let clock: WaitClock
    /// `run`'s loop, shared with its other work, or one the caller started for the render loop.
    public let loop: EventLoop

    public init(clock: WaitClock, loop: EventLoop) {
        self.clock = clock
        self.loop = loop
    }

    public func running<T>(_ body: () async -> T) async -> T {
        await withTaskExecutorPreference(loop) { await body() }
    }

    public func wait(until deadline: WaitClock.Instant?, for inbox: ButtonInbox<WaitClock.Instant>) async {
        let reading = deadline.map { clock.monotonicReading(of: $0) }
        await inbox.wait { waiter in
            guard let reading else { return }
            let timer = loop.schedule(atMonotonic: reading) { waiter.resume() }
            waiter.onResume { loop.cancel(timer) }
        }
        clock.loopWoke(waitingFor: deadline)
    }
}

/// Virtual time (`simulate --virtual`): a deadline is reached at once, as `VirtualClock`
/// jumps to it; there is nothing for an input to cut short, so no task is started for it.
/// With no deadline the loop waits for an input.
public struct VirtualTimeWaiter: LoopWaiter {
    public let clock: VirtualClock

    public init(clock: VirtualClock) { self.clock = clock }

    public func running<T>(_ body: () async -> T) async -> T { await body() }

    public func wait(until deadline: VirtualClock.Instant?, for inbox: ButtonInbox<VirtualClock.Instant>) async {
        guard let deadline else {
            await inbox.wait { _ in }
            return
        }
        // An input already waiting ends the wait before the jump.
        guard inbox.isEmpty else { return }
        _ = try? await clock.sleep(until: deadline, tolerance: .zero)
    }
}

/// Any clock, slept on with its own `sleep(until:)` in a task that a posted input cancels:
/// test clocks (`ContinuousClock`, a clock wrapped to count its sleeps).
public struct ClockSleepWaiter<WaitClock: Clock & Sendable>: LoopWaiter
where WaitClock.Duration == Duration, WaitClock.Instant: Sendable {
    public let clock: WaitClock

    public init(clock: WaitClock) { self.clock = clock }

    public func running<T>(_ body: () async -> T) async -> T { await body() }

    public func wait(until deadline: WaitClock.Instant?, for inbox: ButtonInbox<WaitClock.Instant>) async {
        await inbox.wait(until: deadline, on: clock)
    }
}
