/// Buzzer signals, named as in the frames file.
public enum Signal: String, Sendable, Hashable, CaseIterable {
    /// Final 3-2-1 seconds of a prep phase.
    case prepTick = "prep-tick"
    /// A work phase begins.
    case start
    /// `warning` seconds before a work phase ends.
    case warning
    /// A work phase ends and a rest follows.
    case end
    /// The last phase of the session ended (or, with overtime, the cap was reached).
    case finish
    /// The last N seconds before a phase change other than the end of prep, for a program
    /// with `countdown_beeps`.
    case tick
    /// Half of a phase with `halfway = true` is gone.
    case halfway
    /// Half of a roll is gone: switch partners or sides (`bjj`).
    case `switch`
}

/// A signal at a point of the session timeline (elapsed running time).
public struct SignalPoint: Sendable, Hashable {
    public var offset: Duration
    public var signal: Signal

    public init(offset: Duration, signal: Signal) {
        self.offset = offset
        self.signal = signal
    }
}

/// A signal at an instant of a clock: one the session fired, or one it fires next.
public struct SignalAt<Instant: InstantProtocol & Sendable>: Sendable, Hashable {
    public var signal: Signal
    public var at: Instant
    /// The signal point's offset in the program (elapsed running time): with the signal, it
    /// says which of the program's points this is (`Callouts` keys its phrases by both).
    public var offset: Duration

    public init(signal: Signal, at: Instant, offset: Duration) {
        self.signal = signal
        self.at = at
        self.offset = offset
    }
}

extension Signal {
    /// The buzzer's default on/off pattern per signal (on, off, on, …; the line ends off):
    /// a short tick, a bell, three short warning beeps, a bell, a finish of two longs
    /// and a longer one; a tick again, two short halfway beeps, two long switch beeps.
    /// The one set of defaults: the config's `[buzzer]` (docs/configuration.md) and `Buzzer`
    /// both start from it.
    public static let defaultBuzzerPatterns: [Signal: [Duration]] = [
        .prepTick: [.milliseconds(150)],
        .start: [.milliseconds(600)],
        .warning: [.milliseconds(150), .milliseconds(100), .milliseconds(150), .milliseconds(100), .milliseconds(150)],
        .end: [.milliseconds(600)],
        .finish: [.milliseconds(500), .milliseconds(200), .milliseconds(500), .milliseconds(200), .milliseconds(1200)],
        .tick: [.milliseconds(150)],
        .halfway: [.milliseconds(300), .milliseconds(150), .milliseconds(300)],
        .switch: [.milliseconds(800), .milliseconds(200), .milliseconds(800)],
    ]
}

extension Signal {
    /// The horn's default pattern per signal, for a 12 V horn on a relay: long blasts at the
    /// start and end of work, two short toots for the warning, three blasts at the finish, two
    /// long ones for a `switch`; nothing for ticks and halfway beeps, which sound every few
    /// seconds or minutes and are the buzzer's. The config's `[horn]` starts from it.
    public static let defaultHornPatterns: [Signal: [Duration]] = [
        .prepTick: [],
        .start: [.milliseconds(1500)],
        .warning: [.milliseconds(300), .milliseconds(300), .milliseconds(300)],
        .end: [.milliseconds(1500)],
        .finish: [.milliseconds(1000), .milliseconds(400), .milliseconds(1000), .milliseconds(400), .milliseconds(2000)],
        .tick: [],
        .halfway: [],
        .switch: [.milliseconds(1000), .milliseconds(300), .milliseconds(1000)],
    ]
}
