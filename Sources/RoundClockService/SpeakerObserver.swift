import RoundClockCore
import Sound
import Synchronization

/// Hands the render loop's signals to a speaker as sounds at CLOCK_MONOTONIC instants: the
/// next ones ahead of their instants (`announce`, the whole list each time), the ones fired
/// this turn (`report`, played at once if the speaker has not placed them already). Each
/// signal's strikes (a bell rung three times) become sounds of their own, `offset` after the
/// signal; a class starting on its `start_at` slot has strikes of its own.
public final class SpeakerObserver<Instant: InstantProtocol & Sendable>: LoopObserver where Instant.Duration == Duration {
    public typealias Strike = (offset: Duration, pcm: PCM)
    private let strikes: [Signal: [Strike]]
    private let classStart: [Strike]
    private let monotonic: @Sendable (Instant) -> Duration
    private let announce: @Sendable ([ScheduledSound]) -> Void
    private let report: @Sendable ([ScheduledSound]) -> Void
    /// The last announced sounds of the signals and of the next class start.
    private let announced = Mutex((signals: [ScheduledSound](), classStart: [ScheduledSound]()))

    /// `monotonic` gives an instant of the loop's clock as a CLOCK_MONOTONIC reading.
    public init(strikes: [Signal: [Strike]], classStart: [Strike] = [], monotonic: @escaping @Sendable (Instant) -> Duration,
                announce: @escaping @Sendable ([ScheduledSound]) -> Void, report: @escaping @Sendable ([ScheduledSound]) -> Void) {
        self.strikes = strikes
        self.classStart = classStart
        self.monotonic = monotonic
        self.announce = announce
        self.report = report
    }

    public func observe(_ event: LoopEvent<Instant>) {
        switch event {
        case .signals(let fired, let upcoming):
            let ahead = upcoming.flatMap(sounds)
            announce(announced.withLock { $0.signals = ahead; return $0.signals + $0.classStart })
            if !fired.isEmpty { report(fired.flatMap(sounds)) }
        case .classStarts(let started, let next):
            let ahead = next.map { sounds(classStart, at: $0, kind: Self.classStartKind) } ?? []
            announce(announced.withLock { $0.classStart = ahead; return $0.signals + $0.classStart })
            if let started { report(sounds(classStart, at: started, kind: Self.classStartKind)) }
        default:
            return
        }
    }

    /// The id block of the class start's sounds, after the signals'.
    static var classStartKind: Int { Signal.allCases.count }

    private func sounds(_ signal: SignalAt<Instant>) -> [ScheduledSound] {
        guard let strikes = strikes[signal.signal] else { return [] }
        return sounds(strikes, at: signal.at, kind: Signal.allCases.firstIndex(of: signal.signal) ?? 0)
    }

    private func sounds(_ strikes: [Strike], at instant: Instant, kind: Int) -> [ScheduledSound] {
        let base = monotonic(instant)
        return strikes.enumerated().map { index, strike in
            ScheduledSound(id: kind * 64 + index, nanoseconds: Self.nanoseconds(base + strike.offset), pcm: strike.pcm)
        }
    }

    static func nanoseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
    }
}
