import RoundClockCore
import RoundClockService
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The simulated panels on a terminal: one status line redrawn in place
/// (`[ 2:58] [ 1.12] [WORK]  running`), buzzer signals shown beside it.
final class TerminalPanel: FaceDisplay, LoopObserver {
    let drawing: Bool
    private let last = Mutex((face: Face?.none, status: Status?.none, signal: ""))

    init(drawing: Bool) { self.drawing = drawing }

    func show(_ face: Face) async throws {}

    func committed(_ face: Face, previous: Face?, status: Status, at t: Duration) {
        last.withLock { $0.face = face; $0.status = status; $0.signal = "" }
        draw()
    }

    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        guard case .signal(let signal) = occurrence else { return }
        last.withLock { $0.signal = "  ♪ \(signal.rawValue)" }
        draw()
    }

    private func draw() {
        guard drawing else { return }
        let (face, status, signal) = last.withLock { ($0.face, $0.status, $0.signal) }
        guard let face, let status else { return }
        let panels = PanelRole.allCases.map { role -> String in
            let panel = face[role]
            return "[" + panel.text + "]" + (panel.blinking ? "*" : "")
        }
        Output.write("\r\u{1B}[2K" + panels.joined(separator: " ") + "  \(status.state)" + signal)
    }

    func finish() {
        guard drawing else { return }
        Output.write("\n")
    }
}
