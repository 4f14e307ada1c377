import RoundClockCore
import RoundClockService

/// A checked `simulate` invocation, runnable on any clock.
struct SimulationPlan {
    var program: Program
    var stopAfter: Duration?
    var presses: [ScriptedPress]
    var startWall: WallTime?
    var autostart: Bool
    var virtual: Bool
    var framesPath: String?
    var drawOnTerminal: Bool

    func run<C: Clock & Sendable>(clock: C, decimals: Int) async throws -> SimulationSummary
    where C.Duration == Duration, C.Instant: Sendable {
        let start = clock.now
        let recorder = try framesPath.map { path throws(FileError) in try FramesRecorder(path: path, decimals: decimals) }
        let counter = FrameCounter()
        let terminal = TerminalPanel(drawing: drawOnTerminal)
        var members: [any LoopObserver] = [counter, terminal]
        if let recorder { members.append(recorder) }
        let observer = Observers(members: members)
        let wallAtStart = startWall ?? SystemWallClock.now()
        let followsClock = virtual || startWall != nil
        let wallTime: @Sendable (C.Instant) -> WallTime = { instant in
            followsClock ? wallAtStart.advanced(by: start.duration(to: instant)) : SystemWallClock.now()
        }
        var controller = Controller<C.Instant>(program: program)
        if autostart { _ = controller.perform(.start, at: start) }
        let loop = RenderLoop(
            clock: clock, start: start, display: terminal, observer: observer, wallTime: wallTime,
            stop: stop(from: start),
            endWhenIdle: virtual, script: presses.flatMap { $0.edges(from: start) })
        let final = await loop.run(controller)
        try recorder?.close()
        terminal.finish()
        return SimulationSummary(program: program.name, ran: start.duration(to: clock.now), decimals: decimals,
                                 frames: counter.frames, signals: counter.signals,
                                 status: final.status(at: clock.now))
    }
}

extension SimulationPlan {
    func stop<Instant>(from start: Instant) -> StopCondition<Instant> where Instant: InstantProtocol & Sendable, Instant.Duration == Duration {
        guard let stopAfter else { return .afterFinish(.seconds(1)) }
        return .at(start.advanced(by: stopAfter))
    }
}

struct SimulationSummary: CustomStringConvertible {
    var program: String
    var ran: Duration
    var decimals: Int
    var frames: Int
    var signals: Int
    var status: Status

    var description: String {
        "simulated \(program) for \(ran.formattedSeconds(decimals: decimals)) s: \(frames) panel changes, \(signals) signals, ended \(status.state)"
    }
}
