import RoundClockCore
import RoundClockService

/// One plain line per event on standard error (journald adds the timestamps): actions,
/// display outages and recoveries. No per-second noise.
final class EventLog: LoopObserver {
    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {}

    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        switch occurrence {
        case .action(let action): printError("\(action)")
        case .display(let event): printError("\(event)")
        case .signal: break
        }
    }
}

/// Sends buzzer signals to a buzzer without waiting for the pattern to play.
struct BuzzerObserver<Player: Sendable>: LoopObserver {
    let play: @Sendable (Signal) -> Void
    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {}
    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        if case .signal(let signal) = occurrence { play(signal) }
    }
}
