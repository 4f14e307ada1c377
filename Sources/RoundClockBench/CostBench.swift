import Platform
import RoundClockCore
import RoundClockService
import Simulation

/// `roundclock-bench cost`: what our loop costs, alone in the process, in three states,
/// each run for `duration` of real time on its own emulated board:
/// - running: a countdown that changes the time panel every second;
/// - ready: a session waiting for START (nothing to draw: the loop should not wake);
/// - clock: clock mode, `HH:MM` with the colon blinking at 1 Hz (a change every 0.5 s).
///
/// Wake-ups are the loop's sleeps that returned (counted by wrapping its clock); CPU time
/// is the process's user + system time (getrusage) over the state's run, extrapolated to
/// one hour; I2C traffic is counted by the emulated chips after the start-up sequence and
/// the initial face. Wake-ups include the one at the stop instant (ready: exactly that one).
public struct CostBench: Sendable {
    public var duration: Duration
    public init(duration: Duration) { self.duration = duration }

    public struct Row: Sendable {
        public var state: String
        public var wakeUpsPerSecond: Double
        public var cpuPerHour: Duration
        public var timeChanges: Int
        public var traffic: Traffic
        public var seconds: Double
        public var line: String {
            let perChange = timeChanges > 0
                ? "\(fixed(Double(traffic.bytes) / Double(timeChanges), 2)) bytes, \(fixed(Double(traffic.transactions) / Double(timeChanges), 2)) transactions per time-panel change"
                : "no time-panel change"
            return pad(state, 9, left: true) + pad(fixed(wakeUpsPerSecond, 2), 11) + pad(fixed(micros(cpuPerHour) / 1e6, 3) + " s", 14)
                + "   I2C \(fixed(Double(traffic.bytes) / seconds, 2)) bytes/s, \(fixed(Double(traffic.transactions) / seconds, 2)) transactions/s; \(perChange)"
        }
    }

    public func run() async throws -> CostReport {
        var rows: [Row] = []
        rows.append(try await measure("running", program: try Presets.countdown(.seconds(duration.components.seconds + 5)), start: true))
        rows.append(try await measure("ready", program: Presets.boxing, start: false))
        rows.append(try await measure("clock", program: .wallClock, start: false))
        return CostReport(duration: duration, rows: rows, maxRSSKiB: SystemInfo.maxRSSKiB())
    }

    func measure(_ state: String, program: Program, start: Bool) async throws -> Row {
        let board = try await BenchBoard.make()
        let clock = CountingClock(MonotonicClock())
        let log = CommitLog()
        let anchor = clock.now
        var controller = Controller<MonotonicClock.Instant>(program: program)
        if start { _ = controller.perform(.start, at: anchor) }
        // Count traffic from the initial face on: start-up and first picture are not running cost.
        _ = await board.show(controller.face(at: anchor, wallTime: SystemWallClock.now()))
        let startup = await BenchBoard.traffic(board)
        let cpuBefore = SystemInfo.cpuTime()
        let eventLoop = try EventLoop(name: LoopThread.name)
        defer { eventLoop.finish() }
        let loop = RenderLoop(waiter: EventLoopWaiter(clock: clock, loop: eventLoop), start: anchor, display: EmulatedBenchBoard(board: board), observer: Observers(log),
                              wallTime: { _ in SystemWallClock.now() }, stop: .at(anchor.advanced(by: duration)))
        await loop.run(controller)
        let cpu = SystemInfo.cpuTime() - cpuBefore
        let seconds = micros(duration) / 1e6
        let traffic = await BenchBoard.traffic(board) - startup
        let commits = log.all
        let timeChanges = zip(commits, commits.dropFirst()).filter { $0.face.time != $1.face.time }.count
        return Row(state: state, wakeUpsPerSecond: Double(clock.wakeUps) / seconds, cpuPerHour: cpu * (3600 / seconds),
                   timeChanges: timeChanges, traffic: traffic, seconds: seconds)
    }
}

public struct CostReport: Sendable, CustomStringConvertible {
    public var duration: Duration
    public var rows: [CostBench.Row]
    public var maxRSSKiB: Int
    public var description: String {
        (["cost: our RenderLoop alone, \(fixed(micros(duration) / 1e6, 1)) s real time per state, emulated HT16K33 board (3 panels); \(SystemInfo.machineLine())",
          pad("state", 9, left: true) + pad("wake-ups/s", 11) + pad("CPU per hour", 14)]
            + rows.map(\.line) + ["max RSS (whole process): \(maxRSSKiB) KiB"]).joined(separator: "\n")
    }
}
