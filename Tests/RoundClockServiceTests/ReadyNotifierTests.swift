import I2C
import Panels
import Platform
import RoundClockCore
import Simulation
import Testing
@testable import RoundClockService

/// READY=1 after the first display attempt, whether or not a panel answered.
@Suite struct ReadyNotifierTests {
    /// Runs boxing (not started) for 2 s of virtual time on the simulator board, each chip
    /// failing its first `failures[i]` transfers with EIO, and returns the log and what
    /// the panels showed.
    func boot(failing failures: [Int], server: DatagramSocket) async -> (log: [String], frames: [Recorder.Entry]) {
        let chips = simulatorPanels.map { EmulatedHT16K33(address: $0.address) }
        for (chip, count) in zip(chips, failures) where count > 0 { chip.failNext(count, errno: Errno.EIO) }
        let display = BoardDisplay(specs: simulatorPanels, devices: chips)
        _ = await display.start()
        let log = LogLines()
        let recorder = Recorder()
        let ready = ReadyNotifier(notifier: SystemdNotifier(socket: server.name), logger: log.logger())
        let clock = VirtualClock()
        let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: clock.now, display: display, observer: Observers(members: [ready, recorder]),
                              wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(clock.now.advanced(by: .seconds(2))),
                              endWhenIdle: true)
        await loop.run(Controller(program: Presets.boxing))
        return (log.all, recorder.frames)
    }

    @Test func everyPanelOfflineAtBootIsReadyAnywayAndTheStatusFollowsTheirReturn() async throws {
        let server = try DatagramSocket(abstract: true)
        // Start-up and the attempts at 0 and 0.2 s fail; the one at 0.6 s answers.
        let (log, frames) = await boot(failing: [3, 3, 3], server: server)
        #expect(server.receive() == "READY=1\nSTATUS=running; display offline: time, round, phase",
                "ready without a picture, rather than killed by TimeoutStartSec= and restarted forever")
        #expect(log == ["error: no panel answers (time, round, phase); running anyway, retrying the display\n"])
        #expect(frames.first?.t == .milliseconds(600), "the picture as soon as the panels answer")
        #expect(frames.first?.panels.map(\.text) == [" 0:10", "--.12", "BOX "])
        #expect(server.receive() == "STATUS=running; all panels online")
        #expect(!server.hasPending(), "one STATUS= per change, none per attempt or frame")
    }

    @Test func aPanelOfflineAtBootIsNamedInTheReadyStatus() async throws {
        let server = try DatagramSocket(abstract: true)
        let (log, frames) = await boot(failing: [0, 0, 1000], server: server)
        #expect(server.receive() == "READY=1\nSTATUS=showing 0:10 (ready); display offline: phase")
        #expect(log.isEmpty, "the outage itself is logged by the display events")
        #expect(frames.first?.t == .zero && frames.first?.panels.map(\.role) == [.time, .round])
        #expect(!server.hasPending())
    }

    @Test func allPanelsAnsweringSendsReadyOnceWithThePicture() async throws {
        let server = try DatagramSocket(abstract: true)
        _ = await boot(failing: [0, 0, 0], server: server)
        #expect(server.receive() == "READY=1\nSTATUS=showing 0:10 (ready)")
        #expect(!server.hasPending())
    }
}
