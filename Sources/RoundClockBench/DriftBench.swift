import RoundClockCore
import RoundClockService

/// `roundclock-bench drift --virtual`: a whole program (default: 12-round boxing, 47:10)
/// through the real `RenderLoop` on a `VirtualClock` and an emulated board. In virtual time
/// wake-ups are exact, so every change must land on its ideal instant: the lateness of
/// the last change equals that of the first (both 0), whatever the session length.
public struct VirtualDrift: Sendable {
    public var program: Program
    public init(program: Program = Presets.boxing) { self.program = program }

    public func run() async throws -> DriftReport {
        let board = try await BenchBoard.make()
        let clock = VirtualClock()
        let log = CommitLog()
        let start = clock.now
        var controller = Controller<VirtualClock.Instant>(program: program)
        _ = controller.perform(.start, at: start)
        let wall = WallTime(hour: 12, minute: 0)
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, display: EmulatedBenchBoard(board: board), observer: Observers(log),
                              wallTime: { wall.advanced(by: $0.offset) }, stop: .afterFinish(.seconds(1)), endWhenIdle: true)
        let real = ContinuousClock()
        let began = real.now
        await loop.run(controller)
        let took = began.duration(to: real.now)
        let timeline = Timeline(program: program, horizon: (program.total ?? .zero) + .seconds(1))
        let lateness = timeline.lateness(of: log.all).filter { $0.index > 0 }.map(\.lateness)
        return DriftReport(program: program.name, ideal: timeline.entries.count - 1, changes: lateness.count,
                           first: lateness.first, last: lateness.last, worst: lateness.map(magnitude).max(),
                           simulated: clock.now.offset, took: took)
    }
}

public struct DriftReport: Sendable, CustomStringConvertible {
    public var program: String
    public var ideal: Int
    public var changes: Int
    public var first: Duration?
    public var last: Duration?
    public var worst: Duration?
    public var simulated: Duration
    public var took: Duration
    /// Every due change was committed and the last one is exactly as late as the first.
    public var driftFree: Bool { changes == ideal && first != nil && first == last && worst == first.map(magnitude) }
    public var description: String {
        "drift (virtual time): \(program), \(fixed(micros(simulated) / 1e6, 0)) s simulated in \(fixed(micros(took) / 1e3, 0)) ms; "
            + "\(changes) of \(ideal) changes committed; lateness first \(first.map { fixed(micros($0), 0) } ?? "-") µs, "
            + "last \(last.map { fixed(micros($0), 0) } ?? "-") µs, worst \(worst.map { fixed(micros($0), 0) } ?? "-") µs: "
            + (driftFree ? "no drift" : "DRIFT")
    }
}

/// |d|.
func magnitude(_ d: Duration) -> Duration { d < .zero ? .zero - d : d }
