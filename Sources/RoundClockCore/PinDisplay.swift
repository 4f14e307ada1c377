/// The phone remote's PIN on the panels, for an owner with no shell (docs/remote.md "The
/// PIN"): `PIN` on the phase panel and the digits on the time panel, a part at a time when
/// the PIN is longer than the time panel (`PIN1`, `PIN2`, ... each for `partTime`), for a
/// bounded time, and only while the clock is ready or shows the wall clock.
public struct PinDisplay<Instant: InstantProtocol & Sendable>: Sendable, Hashable where Instant.Duration == Duration {
    /// How long each part stays on the panels.
    public static var partTime: Duration { .seconds(4) }
    /// How long the hold-STOP-and-press-START gesture shows the PIN.
    public static var gestureTime: Duration { .seconds(40) }
    /// The longest a `show-pin` request may ask for.
    public static var longest: Duration { .seconds(600) }

    public let pin: String
    public let from: Instant
    public let until: Instant

    public init(pin: String, from: Instant, for duration: Duration) {
        self.pin = pin
        self.from = from
        self.until = from.advanced(by: duration)
    }

    /// The parts the time panel of `digits` positions shows, in order.
    public static func parts(of pin: String, digits: Int) -> [String] {
        let characters = Array(pin)
        let size = max(1, digits)
        return stride(from: 0, to: characters.count, by: size).map { String(characters[$0..<min($0 + size, characters.count)]) }
    }

    /// The face at `now` (before `until`) and when it next changes (the next part, or the end).
    func face(at now: Instant, widths: PanelWidths, brightness: UInt8) -> (face: Face, change: Instant) {
        let parts = Self.parts(of: pin, digits: widths.time)
        let elapsed = from.duration(to: now)
        let index = max(0, Int(elapsed / Self.partTime)) % max(1, parts.count)
        let part = parts.isEmpty ? "" : parts[index]
        let time = part + String(repeating: " ", count: max(0, widths.time - part.count))
        let label = parts.count > 1 ? "PIN\(index + 1)" : "PIN "
        var face = Face(time: PanelText(time), round: PanelText(String(repeating: " ", count: widths.round)), phase: PanelText(label))
        face.brightness = brightness
        face.secret = true
        let nextPart = from.advanced(by: Self.partTime * (Int(elapsed / Self.partTime) + 1))
        return (face, min(nextPart, until))
    }
}

extension Controller {
    /// The gateway's PIN at `now`: remembered for the gesture, and shown for `duration` when
    /// that is above zero and the clock is ready or shows the wall clock. What came due up to
    /// `now`, as `advance` gives it.
    public mutating func showPIN(_ pin: String, for duration: Duration, at now: Instant) -> [Occurrence<Instant>] {
        let out = advance(to: now)
        let at = processedUntil ?? now
        remotePIN = pin
        guard duration > .zero, isIdleNow(at: at) else { return out }
        pinDisplay = PinDisplay(pin: pin, from: at, for: min(duration, PinDisplay<Instant>.longest))
        return out
    }

    /// The PIN leaves the panels (a command came).
    public mutating func hidePIN() { pinDisplay = nil }

    /// START pressed while STOP is held, the clock idle and a PIN known: the PIN for
    /// `PinDisplay.gestureTime`, and STOP's hold does nothing more.
    mutating func pinGesture(at now: Instant) -> Bool {
        guard let remotePIN, trackers[.stop]?.pressedAt != nil, isIdleNow(at: now) else { return false }
        trackers[.stop]?.markLongPressFired()
        pinDisplay = PinDisplay(pin: remotePIN, from: now, for: PinDisplay<Instant>.gestureTime)
        return true
    }

    func isIdleNow(at now: Instant) -> Bool {
        program.kind == .wallClock || session.state(at: now) == .ready
    }
}
