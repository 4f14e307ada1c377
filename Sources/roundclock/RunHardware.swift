import LinuxHardware
import Logging
import Panels
import Platform
import RoundClockConfig
import RoundClockCore
import RoundClockService

extension Run {
    /// Buttons, buzzer, stack light and horn of a real board, as services; their run-time
    /// failures go to the log.
    struct Hardware: Sendable {
        let buttons: ButtonService?
        let buzzer: BuzzerService?
        let lights: StackLightService?
        let horn: BuzzerService?

        init(board: Board, config: Config, inbox: ButtonInbox<MonotonicClock.Instant>, loop: EventLoop, logger: Logger) throws {
            if board.buttons.isEmpty {
                buttons = nil
            } else {
                let reader = try ButtonReader(buttons: board.buttons, activeLow: board.buttonsActiveLow,
                                              bias: GPIOBias(rawValue: board.buttonBias) ?? .pullUp,
                                              lockout: config.buttons.debounce,
                                              onFailure: { logger.error("\($0)") }, events: inbox.post)
                buttons = ButtonService(reader: reader, loop: loop)
            }
            buzzer = try board.buzzer.map {
                BuzzerService(buzzer: try Buzzer(line: $0, activeLow: board.buzzerActiveLow, patterns: config.buzzer.patterns, loop: loop,
                                                 onFailure: { logger.error("buzzer: \($0)") }))
            }
            lights = try board.lights.isEmpty ? nil : StackLightService(lights: StackLights(
                lines: board.lights, activeLow: board.lightsActiveLow, loop: loop, onFailure: { logger.error("stack light: \($0)") }))
            horn = try board.horn.map {
                BuzzerService(buzzer: try Buzzer(line: $0, activeLow: board.hornActiveLow, patterns: config.horn.patterns,
                                                 consumer: "roundclock-horn", loop: loop, onFailure: { logger.error("horn: \($0)") }))
            }
        }
    }
}

/// Sends buzzer signals to a buzzer or the horn without waiting for the pattern to play.
struct BuzzerObserver: DisplayObserver {
    let play: @Sendable (Signal) -> Void
    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {}
    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        if case .signal(let signal, _) = occurrence { play(signal) }
    }
}
