import ClockLink
import ControlProtocol

/// The reports of a clock link's lines for `<prefix>/state`, each from the program the clock
/// runs as the clock defined it.
public struct ClockReports: Sendable {
    private var running = RunningProgram()

    public init() {}

    /// The report of `line`; `nil` when it is no state line (the clock is unreachable).
    /// `realtimeNow`: CLOCK_REALTIME now, in nanoseconds.
    public mutating func report(after line: String, realtimeNow: Int64) -> SessionReport? {
        let state = ControlState.parse(line)
        let program = running.update(state)
        return state.map { SessionReport($0, program: program, realtimeNow: realtimeNow) }
    }
}
