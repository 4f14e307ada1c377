/// The lamps of a three-colour stack light, named as in the board file's `[lights]`: green
/// for work, red for prep and rest, yellow for the warning window before a work phase ends.
public enum Lamp: String, Sendable, Hashable, CaseIterable {
    case work, rest, warn
}

/// What the stack light shows for a session's status: at most one lamp, steady or blinking.
/// The lamp follows the clock (docs/buttons-and-panels.md "Stack light and horn"):
/// - running prep or rest: `rest` (red: not now, get ready or recover);
/// - running work: `work` (green), but `warn` (yellow) alone in the warning window;
/// - paused: the lamp of the moment of the pause, blinking at 1 Hz like the paused time;
/// - ready, finished and clock mode: every lamp off.
public struct StackLight: Sendable, Hashable, CustomStringConvertible {
    /// The lit lamp; `nil`: all off.
    public var lamp: Lamp?
    /// The lamp blinks: on and off for `StackLight.blinkHalfPeriod` each.
    public var blinking: Bool

    public init(lamp: Lamp?, blinking: Bool = false) {
        self.lamp = lamp
        self.blinking = lamp != nil && blinking
    }

    /// Every lamp off.
    public static let off = StackLight(lamp: nil)

    /// Half of the 1 Hz blink of a paused session's lamp, as the time panel blinks.
    public static let blinkHalfPeriod = Duration.milliseconds(500)

    /// The stack light for `status`.
    public init(_ status: Status) {
        let lamp: Lamp?
        switch status.phase {
        case .prep, .rest: lamp = .rest
        case .work: lamp = status.warning ? .warn : .work
        case .clock: lamp = nil
        }
        switch status.state {
        case .running: self.init(lamp: lamp)
        case .paused: self.init(lamp: lamp, blinking: true)
        case .ready, .finished, .clock: self = .off
        }
    }

    /// Whether `lamp` is lit while the light is steady, or in the on half of a blink.
    public func lights(_ lamp: Lamp) -> Bool { self.lamp == lamp }

    /// `off`, `work`, `rest`, `warn`, with ` (blinking)` after a blinking lamp.
    public var description: String {
        guard let lamp else { return "off" }
        return blinking ? "\(lamp.rawValue) (blinking)" : lamp.rawValue
    }
}
