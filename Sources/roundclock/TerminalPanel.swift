import Panels
import RoundClockCore
import RoundClockService
import Simulation
import Synchronization

/// Draws the simulated panels on a terminal as segment art, from what the emulated
/// chips hold (dimming as shade), redrawn in place; the state, what a stack light shows and
/// the last buzzer signal on a line below. A panel whose chip is set to blink (HT16K33 display setup
/// B2B1, e.g. the paused time at 1 Hz) blinks on screen too: the chip blinks by itself
/// with no further writes, so in real time a ticker redraws it every `blinkRedraw`.
final class TerminalPanel: DisplayObserver {
    let drawing: Bool
    let style: RenderStyle
    /// Redraw interval while a panel blinks (a quarter of the fastest, 2 Hz, period).
    static let blinkRedraw = Duration.milliseconds(125)
    private let clock = ContinuousClock()
    private let state = Mutex((panels: [PanelReadout](), status: Status?.none, signal: "", linesDrawn: 0,
                               blinkingSince: [PanelRole: ContinuousClock.Instant]()))
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// `animateBlink`: real time only; in virtual time a blink is shown steady with its label.
    init(drawing: Bool, animateBlink: Bool = false) {
        self.drawing = drawing
        self.style = RenderStyle.detect()
        guard drawing, animateBlink else { return }
        ticker.withLock { task in
            task = Task { [weak self] in
                while !Task.isCancelled {
                    do { try await Task.sleep(for: Self.blinkRedraw) } catch { return }
                    guard let self else { return }
                    if self.state.withLock({ !$0.blinkingSince.isEmpty }) { self.draw() }
                }
            }
        }
    }

    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        let now = clock.now
        state.withLock { s in
            s.panels = panels
            s.status = status
            for panel in panels {
                if panel.blink == .off || !panel.displayOn {
                    s.blinkingSince[panel.role] = nil
                } else if s.blinkingSince[panel.role] == nil {
                    s.blinkingSince[panel.role] = now // the chip's blink starts when it is set
                }
            }
        }
        draw()
    }

    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        switch occurrence {
        case .signal(let signal, _): state.withLock { $0.signal = "buzzer: \(signal.rawValue)" }
        case .action(let action): state.withLock { $0.signal = "button: \(action)" }
        case .display(let event): state.withLock { $0.signal = "\(event)" }
        }
        draw()
    }

    private func draw() {
        guard drawing else { return }
        let now = clock.now
        state.withLock { s in
            var lines: [String] = []
            for panel in s.panels {
                lines += renderArt(kind: panel.kind, ram: panel.ram, brightness: panel.brightness, blink: panel.blink,
                                   displayOn: panel.displayOn, elapsed: s.blinkingSince[panel.role].map { $0.duration(to: now) },
                                   style: style, label: panel.role.rawValue).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            }
            lines.append((s.status.map { "state: \($0.state), stack light: \(StackLight($0))" } ?? "") + "   " + s.signal)
            let up = s.linesDrawn > 0 ? "\u{1B}[\(s.linesDrawn)A" : ""
            s.linesDrawn = lines.count
            // Written under the lock: the loop and the blink ticker both draw, and one
            // picture's escape sequences must never interleave with another's.
            Output.write(up + lines.map { "\r\u{1B}[2K" + $0 }.joined(separator: "\n") + "\n")
        }
    }

    /// Stops the blink ticker and returns once it has ended: nothing draws afterwards.
    func finish() async {
        let task = ticker.withLock { task in
            defer { task = nil }
            task?.cancel()
            return task
        }
        await task?.value
    }

    deinit { ticker.withLock { $0?.cancel() } }
}
