import Panels
import RoundClockCore
import RoundClockService
import Synchronization
import Testing
@testable import RoundClockBench

/// The traffic target (docs/benchmarks.md), ≤ 6 bytes on the bus per displayed second, with
/// the power-loss checks' reads counted, on the built-in simulator board
/// (boards/simulator.toml: 3 panels) over a whole boxing session in virtual time.
@Suite struct TrafficBudgetTests {
    /// Forwards to the board and notes when each power check ran.
    final class CheckTimes: FaceDisplay {
        let board: any FaceDisplay
        let clock: VirtualClock
        private let times = Mutex<[Duration]>([])
        init(board: any FaceDisplay, clock: VirtualClock) {
            self.board = board
            self.clock = clock
        }
        var powerCheckInterval: Duration? { board.powerCheckInterval }
        var all: [Duration] { times.withLock { $0 } }
        func show(_ face: Face) async -> DisplayUpdate { await board.show(face) }
        func checkPower() async -> DisplayUpdate {
            let now = clock.now.offset
            times.withLock { $0.append(now) }
            return await board.checkPower()
        }
    }

    @Test func aWholeBoxingSessionStaysWithinSixBytesPerDisplayedSecondReadsIncluded() async throws {
        let board = try await BenchBoard.make()
        let startup = await BenchBoard.traffic(board)
        let clock = VirtualClock()
        let display = CheckTimes(board: board, clock: clock)
        let counter = FrameCounter()
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: clock.now, display: display, observer: Observers(counter),
                              wallTime: { _ in WallTime(hour: 12, minute: 0) }, stop: .afterFinish(.seconds(1)), endWhenIdle: true)
        var controller = Controller<VirtualClock.Instant>(program: Presets.boxing)
        _ = controller.perform(.start, at: clock.now)
        await loop.run(controller)
        let end = await BenchBoard.traffic(board)
        let (bytes, reads) = (end.bytes - startup.bytes, end.readBytes - startup.readBytes)
        #expect(counter.timeChanges == 2831)
        let perSecond = Double(bytes) / Double(counter.timeChanges)
        #expect(perSecond <= 6, "\(end), \(perSecond) bytes per displayed second")
        #expect(end.failedTransactions == 0)
        // Every panel at each check, at least every 2 s, riding on the time changes.
        let checks = display.all
        #expect(checks.count >= 2830 / 2, "\(checks.count) checks")
        let gaps = zip(checks, checks.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 <= .seconds(2) }, "longest: \(gaps.max() ?? .zero)")
        #expect(checks.allSatisfy { $0 == .seconds($0.components.seconds) }, "each on a whole-second change")
        // One 1-byte read per panel and check (2 bytes on the wire), except each panel's
        // first: every byte was written at start-up since, so only the settings are re-sent.
        #expect(reads == 3 * checks.count - 3)
        #expect(bytes - 2 * reads >= 6822, "the display's own writes (6822 bytes) are all still there")
    }
}
