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
    /// The last phase of the session ended.
    case finish
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
