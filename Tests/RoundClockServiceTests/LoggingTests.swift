import Glibc
import Logging
import Platform
import RoundClockCore
import Testing
@testable import RoundClockService

@Suite struct LoggingTests {
    @Test func journalLines() {
        #expect(JournalLogHandler.line(level: .info, message: "start", priorityPrefix: true) == "<6>start\n")
        #expect(JournalLogHandler.line(level: .error, message: "a\nb", metadata: ["dev": "/dev/i2c-1", "addr": "0x70"], priorityPrefix: true)
                == "<3>a\\nb addr=0x70 dev=/dev/i2c-1\n")
        #expect(JournalLogHandler.line(level: .warning, message: "w", priorityPrefix: false) == "warning: w\n")
        #expect([Logger.Level.trace, .debug, .info, .notice, .warning, .error, .critical].map(JournalLogHandler.priority) == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test func handlerRespectsLevelAndMetadata() {
        let log = LogLines()
        var logger = log.logger(level: .info, prefix: true)
        logger[metadataKey: "board"] = "simulator"
        logger.debug("hidden")
        logger.info("started", metadata: ["program": "boxing"])
        #expect(log.all == ["<6>started board=simulator program=boxing\n"])
    }

    @Test func stderrIsTheJournalOnlyWhenJournalStreamNamesIt() {
        var info = stat()
        #expect(fstat(2, &info) == 0)
        let (dev, ino) = (UInt64(info.st_dev), UInt64(info.st_ino))
        #expect(JournalLogHandler.stderrIsJournal(journalStream: "\(dev):\(ino)"))
        #expect(!JournalLogHandler.stderrIsJournal(journalStream: "\(dev):\(ino &+ 1)"))
        #expect(!JournalLogHandler.stderrIsJournal(journalStream: nil))
        #expect(!JournalLogHandler.stderrIsJournal(journalStream: "\(dev)"))
        #expect(!JournalLogHandler.stderrIsJournal(journalStream: "x:\(ino)"))
    }

    @Test func eventLogOneLinePerEvent() {
        let log = LogLines()
        let events = EventLog(logger: log.logger(level: .debug))
        let face = Controller<VirtualClock.Instant>(program: Presets.boxing).face(at: .init(offset: .zero), wallTime: WallTime(sinceEpoch: .zero))
        let running = Status(state: .running, phase: .prep, round: 0, rounds: 12)
        events.committed(face, panels: [], status: running, at: .zero)
        events.occurred(.action(.start), at: .zero)
        events.occurred(.signal(.prepTick, ahead: true), at: .seconds(7))
        events.occurred(.display(.offline(.time, "i2c-1 0x70: write block @0x00 (1 bytes) failed: EREMOTEIO (121)")), at: .seconds(8))
        events.occurred(.display(.online(.time)), at: .milliseconds(11_500))
        events.committed(face, panels: [], status: running, at: .seconds(12))
        events.occurred(.action(.pause), at: .seconds(12))
        events.occurred(.action(.program("tabata")), at: .seconds(13))
        #expect(log.all == [
            "info: start: running, round 0 of 12, prep\n",
            "debug: signal prep-tick\n",
            "error: display time offline: i2c-1 0x70: write block @0x00 (1 bytes) failed: EREMOTEIO (121)\n",
            "notice: display time online again, re-initialised\n",
            "info: pause: running, round 0 of 12, prep\n",
            "info: program tabata\n",
        ])
    }

    @Test func eventLine() {
        #expect(EventLog.line(for: .reset, status: Status(state: .ready, phase: .work, round: 1, rounds: 1)) == "reset: ready, work")
        #expect(EventLog.line(for: .start, status: Status(state: .clock, phase: .clock, round: 0, rounds: 0)) == "start")
        #expect(EventLog.line(for: .resume, status: nil) == "resume")
    }
}
