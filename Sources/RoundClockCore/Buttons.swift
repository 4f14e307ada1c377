/// The clock's push buttons.
public enum Button: String, Sendable, Hashable, CaseIterable {
    case start, stop, mode
}

/// A debounced edge from a button, with the instant it happened (for real hardware,
/// the kernel's event timestamp mapped onto the monotonic clock).
public struct ButtonEvent<Instant: InstantProtocol & Sendable>: Sendable, Hashable where Instant.Duration == Duration {
    public enum Edge: String, Sendable, Hashable { case press, release }
    public var button: Button
    public var edge: Edge
    public var at: Instant
    public init(_ button: Button, _ edge: Edge, at: Instant) {
        self.button = button
        self.edge = edge
        self.at = at
    }
}

/// Turns press/release edges of one button into gestures: press-down (acted on at once,
/// never delayed to see whether it becomes a long press) and one long press per hold,
/// due `threshold` after the press while the button is still down.
struct ButtonTracker<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    private(set) var pressedAt: Instant?
    private(set) var longPressFired = false

    /// Returns false for a repeated press edge without a release in between.
    mutating func press(at instant: Instant) -> Bool {
        guard pressedAt == nil else { return false }
        pressedAt = instant
        longPressFired = false
        return true
    }

    mutating func release() {
        pressedAt = nil
        longPressFired = false
    }

    func longPressDeadline(threshold: Duration) -> Instant? {
        guard let pressedAt, !longPressFired else { return nil }
        return pressedAt.advanced(by: threshold)
    }

    mutating func markLongPressFired() { longPressFired = true }
}
