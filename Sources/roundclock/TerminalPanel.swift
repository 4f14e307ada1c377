import RoundClockCore
import RoundClockService
import Simulation
import Synchronization

/// Draws the simulated panels on a terminal as segment art, from what the emulated
/// chips hold (dimming as shade), redrawn in place; the state and the last buzzer
/// signal on a line below.
final class TerminalPanel: LoopObserver {
    let drawing: Bool
    let style: RenderStyle
    private let state = Mutex((panels: [PanelReadout](), status: Status?.none, signal: "", linesDrawn: 0))

    init(drawing: Bool) {
        self.drawing = drawing
        self.style = RenderStyle.detect()
    }

    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        state.withLock { $0.panels = panels; $0.status = status }
        draw()
    }

    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        switch occurrence {
        case .signal(let signal): state.withLock { $0.signal = "buzzer: \(signal.rawValue)" }
        case .action(let action): state.withLock { $0.signal = "button: \(action)" }
        case .display(let event): state.withLock { $0.signal = "\(event)" }
        }
        draw()
    }

    private func draw() {
        guard drawing else { return }
        let text = state.withLock { s -> String in
            var lines: [String] = []
            for panel in s.panels {
                lines += renderArt(kind: panel.kind, ram: panel.ram, brightness: panel.brightness, blink: panel.blink,
                                   displayOn: panel.displayOn, style: style, label: panel.role.rawValue).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            }
            lines.append((s.status.map { "state: \($0.state)" } ?? "") + "   " + s.signal)
            let up = s.linesDrawn > 0 ? "\u{1B}[\(s.linesDrawn)A" : ""
            s.linesDrawn = lines.count
            return up + lines.map { "\r\u{1B}[2K" + $0 }.joined(separator: "\n") + "\n"
        }
        Output.write(text)
    }

    func finish() {}
}
