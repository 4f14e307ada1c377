import RoundClockCore
import Sound
import Synchronization

/// Hands the render loop's signals to a speaker as sounds at CLOCK_MONOTONIC instants: the
/// next ones ahead of their instants (`announce`, the whole list each time), the ones fired
/// this turn (`report`, played at once if the speaker has not placed them already). Each
/// signal's strikes (a bell rung three times) become sounds of their own, `offset` after the
/// signal; a class starting on its `start_at` slot has strikes of its own. With `callouts`,
/// a signal's spoken callout (for the running program) starts on the signal's instant, mixed
/// with its strikes: the voice lands on the boundary it names, as the bell does.
public final class SpeakerObserver<Instant: InstantProtocol & Sendable>: LoopObserver where Instant.Duration == Duration {
    public typealias Strike = (offset: Duration, pcm: PCM)
    private let strikes: [Signal: [Strike]]
    private let classStart: [Strike]
    private let callouts: CalloutSounds?
    private let monotonic: @Sendable (Instant) -> Duration
    private let announce: @Sendable ([ScheduledSound]) -> Void
    private let report: @Sendable ([ScheduledSound]) -> Void

    private struct Announced {
        /// The sounds last announced for the signals and for the next class start.
        var signals: [ScheduledSound] = []
        var classStart: [ScheduledSound] = []
        /// The signals they were made from, and the running program's name (for callouts).
        var upcoming: [SignalAt<Instant>] = []
        var program: String?
        var all: [ScheduledSound] { signals + classStart }
    }
    private let announced = Mutex(Announced())

    /// `monotonic` gives an instant of the loop's clock as a CLOCK_MONOTONIC reading.
    public init(strikes: [Signal: [Strike]], classStart: [Strike] = [], callouts: CalloutSounds? = nil,
                monotonic: @escaping @Sendable (Instant) -> Duration,
                announce: @escaping @Sendable ([ScheduledSound]) -> Void, report: @escaping @Sendable ([ScheduledSound]) -> Void) {
        self.strikes = strikes
        self.classStart = classStart
        self.callouts = callouts
        self.monotonic = monotonic
        self.announce = announce
        self.report = report
        callouts?.whenReady { [weak self] name in self?.calloutsReady(for: name) }
    }

    public func observe(_ event: LoopEvent<Instant>) {
        switch event {
        case .session(let session, _, _), .sessionChangedByAction(let session, _):
            guard let callouts else { return }
            announced.withLock { $0.program = session.program.name }
            callouts.prepare(session.program)
        case .signals(let fired, let upcoming):
            // Announced under the lock, so a list made on the voice's thread never
            // overtakes a newer one.
            let firedSounds = announced.withLock { state -> [ScheduledSound] in
                state.upcoming = upcoming
                state.signals = upcoming.flatMap { sounds($0, program: state.program) }
                announce(state.all)
                return fired.flatMap { sounds($0, program: state.program) }
            }
            if !firedSounds.isEmpty { report(firedSounds) }
        case .classStarts(let started, let next):
            announced.withLock { state in
                state.classStart = next.map { sounds(classStart, at: $0, kind: Self.classStartKind) } ?? []
                announce(state.all)
            }
            if let started { report(sounds(classStart, at: started, kind: Self.classStartKind)) }
        default:
            return
        }
    }

    /// The id block of the class start's sounds, after the signals'.
    static var classStartKind: Int { Signal.allCases.count }
    /// The id block of the callouts, after the class start's: one id per signal.
    static var calloutKind: Int { Signal.allCases.count + 1 }

    /// A program's callouts became ready: the signals announced for it again, with them.
    private func calloutsReady(for program: String) {
        announced.withLock { state in
            guard state.program == program, !state.upcoming.isEmpty else { return }
            state.signals = state.upcoming.flatMap { sounds($0, program: program) }
            announce(state.all)
        }
    }

    private func sounds(_ signal: SignalAt<Instant>, program: String?) -> [ScheduledSound] {
        let kind = Signal.allCases.firstIndex(of: signal.signal) ?? 0
        var out = strikes[signal.signal].map { sounds($0, at: signal.at, kind: kind) } ?? []
        if let callouts, let program, let pcm = callouts.sound(program: program, offset: signal.offset, signal: signal.signal) {
            let at = Self.nanoseconds(monotonic(signal.at))
            out.append(ScheduledSound(id: Self.calloutKind * 64 + kind, nanoseconds: at, pcm: pcm))
        }
        return out
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
