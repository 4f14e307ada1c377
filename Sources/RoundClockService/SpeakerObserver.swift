import RoundClockCore
import Sound

/// Hands the render loop's signals to a speaker as sounds at CLOCK_MONOTONIC instants: the
/// next ones ahead of their instants (`announce`), the ones fired this turn (`report`, played
/// at once if the speaker has not placed them already). Each signal's strikes (a bell rung
/// three times) become sounds of their own, `offset` after the signal.
public struct SpeakerObserver<Instant: InstantProtocol & Sendable>: LoopObserver where Instant.Duration == Duration {
    public typealias Strike = (offset: Duration, pcm: PCM)
    private let strikes: [Signal: [Strike]]
    private let monotonic: @Sendable (Instant) -> Duration
    private let announce: @Sendable ([ScheduledSound]) -> Void
    private let report: @Sendable ([ScheduledSound]) -> Void

    /// `monotonic` gives an instant of the loop's clock as a CLOCK_MONOTONIC reading.
    public init(strikes: [Signal: [Strike]], monotonic: @escaping @Sendable (Instant) -> Duration,
                announce: @escaping @Sendable ([ScheduledSound]) -> Void, report: @escaping @Sendable ([ScheduledSound]) -> Void) {
        self.strikes = strikes
        self.monotonic = monotonic
        self.announce = announce
        self.report = report
    }

    public func observe(_ event: LoopEvent<Instant>) {
        guard case .signals(let fired, let upcoming) = event else { return }
        announce(upcoming.flatMap(sounds))
        if !fired.isEmpty { report(fired.flatMap(sounds)) }
    }

    private func sounds(_ signal: SignalAt<Instant>) -> [ScheduledSound] {
        guard let strikes = strikes[signal.signal] else { return [] }
        let base = monotonic(signal.at)
        let kind = Signal.allCases.firstIndex(of: signal.signal) ?? 0
        return strikes.enumerated().map { index, strike in
            ScheduledSound(id: kind * 64 + index, nanoseconds: Self.nanoseconds(base + strike.offset), pcm: strike.pcm)
        }
    }

    static func nanoseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
    }
}
