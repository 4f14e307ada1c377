import Platform
import RoundClockCore

extension ButtonReader {
    /// Requests each button's line (input, both edges, `bias`, active-low as wired) and
    /// delivers each debounced edge to `events` as a `ButtonEvent` of `MonotonicClock`:
    /// the kernel's CLOCK_MONOTONIC edge timestamp as the instant
    /// (`monotonicInstant(ofKernelNanoseconds:)`). `events` runs on the event loop's thread.
    public convenience init(buttons: [Button: String], activeLow: Bool, bias: GPIOBias, lockout: Duration = .milliseconds(30),
                            useKernelDebounce: Bool = false, onFailure: @escaping FailureHandler = { _ in },
                            events: @escaping @Sendable (ButtonEvent<MonotonicClock.Instant>) -> Void) throws(SystemError) {
        try self.init(buttons: buttons, activeLow: activeLow, bias: bias, lockout: lockout,
                      useKernelDebounce: useKernelDebounce, onFailure: onFailure,
                      handler: Self.events(placedBy: { monotonicInstant(ofKernelNanoseconds: $0) }, to: events))
    }

    /// A handler that turns each delivered edge into a `ButtonEvent` (pressed: `.press`,
    /// released: `.release`) at `place(kernel timestamp)` and hands it to `sink`.
    static func events<Instant>(placedBy place: @escaping @Sendable (_ monotonicNanoseconds: UInt64) -> Instant,
                                to sink: @escaping @Sendable (ButtonEvent<Instant>) -> Void) -> Handler {
        { button, pressed, timestamp in
            sink(ButtonEvent(button, pressed ? .press : .release, at: place(timestamp)))
        }
    }
}
