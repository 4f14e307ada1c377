import LinuxHardware
import RoundClockConfig
import RoundClockCore
import RoundClockService

extension Run {
    /// Buttons and buzzer of a real board.
    struct Hardware: Sendable {
        let reader: ButtonReader?
        let buzzer: Buzzer?

        init(board: Board, config: Config, inbox: ButtonInbox<ContinuousClock.Instant>, clock: ContinuousClock) throws {
            if board.buttons.isEmpty {
                reader = nil
            } else {
                reader = try ButtonReader(buttons: board.buttons, activeLow: board.buttonsActiveLow,
                                          bias: GPIOBias(rawValue: board.buttonBias) ?? .pullUp,
                                          lockout: config.buttons.debounce) { button, pressed, timestamp in
                    // Kernel timestamps are CLOCK_MONOTONIC: place the edge on the loop's clock.
                    let at = continuousInstant(ofMonotonicNanoseconds: timestamp, on: clock)
                    inbox.post(ButtonEvent(button, pressed ? .press : .release, at: at))
                }
            }
            var patterns: [Signal: Buzzer.Pattern] = [:]
            for signal in Signal.allCases { patterns[signal] = config.buzzer[signal] }
            buzzer = try board.buzzer.map { try Buzzer(line: $0, activeLow: board.buzzerActiveLow, patterns: patterns) }
        }
    }
}

/// Sends buzzer signals to a buzzer without waiting for the pattern to play.
struct BuzzerObserver: LoopObserver {
    let play: @Sendable (Signal) -> Void
    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {}
    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        if case .signal(let signal) = occurrence { play(signal) }
    }
}
