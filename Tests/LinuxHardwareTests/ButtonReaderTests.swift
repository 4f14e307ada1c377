#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import RoundClockCore
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport
@testable import LinuxHardware

/// A button line made of a pipe, polled by the reader thread like a GPIO event fd. The
/// test writes `p` (pressed), `r` (released) or `e` (that read fails with EIO).
final class PipeLine: InputLine, @unchecked Sendable {
    // @unchecked: `level` is touched only by the reader thread.
    let name: String
    private let fds: [Int32]
    private let notOpen: Int32?
    private var level = false

    /// `broken`: the event fd is one that is not open (POLLNVAL), as after a bad close.
    init(_ name: String, broken: Bool = false) {
        self.name = name
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.fds = fds
        if broken {
            // Far above the fds in use, so pipe(2) in the reader cannot reuse it.
            let fd = fcntl(fds[0], F_DUPFD_CLOEXEC, 900)
            close(fd)
            notOpen = fd
        } else {
            notOpen = nil
        }
    }

    deinit { for fd in fds { close(fd) } }

    var description: String { name }
    var eventFD: Int32 { notOpen ?? fds[0] }

    func send(_ code: Character) {
        var byte = code.asciiValue!
        _ = write(fds[1], &byte, 1)
    }

    func readEvent() throws(SystemError) -> (active: Bool, timestampNanoseconds: UInt64) {
        var byte: UInt8 = 0
        guard read(fds[0], &byte, 1) == 1, byte != UInt8(ascii: "e") else {
            throw SystemError(device: name, operation: "read edge event", errno: EIO)
        }
        level = byte == UInt8(ascii: "p")
        return (level, monotonicNanoseconds())
    }

    func value() throws(SystemError) -> Bool { level }
}

/// What the reader delivered, from its thread.
final class Seen: Sendable {
    struct Edge: Equatable { var button: Button; var pressed: Bool }
    private let state = Mutex((edges: [Edge](), failures: [ButtonFailure](), polls: 0))
    var edges: [Edge] { state.withLock { $0.edges } }
    var failures: [ButtonFailure] { state.withLock { $0.failures } }
    var polls: Int { state.withLock { $0.polls } }

    /// A reader on `lines` (no lockout) that records here; `poll` defaults to poll(2), counted.
    func reader(_ lines: [(Button, PipeLine)], poll: ButtonReader.Poll? = nil) -> ButtonReader {
        ButtonReader(lines: lines.map { ($0.0, $0.1 as any InputLine) }, lockout: .zero,
                     poll: { fds, timeout in
                         self.state.withLock { $0.polls += 1 }
                         return (poll ?? ButtonReader.systemPoll)(&fds, timeout)
                     },
                     onFailure: { failure in self.state.withLock { $0.failures.append(failure) } },
                     handler: { button, pressed, _ in self.state.withLock { $0.edges.append(Edge(button: button, pressed: pressed)) } })
    }
}

@Suite struct ButtonReaderTests {
    typealias Edge = Seen.Edge
    let start = PipeLine("start-line"), stop = PipeLine("stop-line")

    @Test func aFailingLineIsReportedOnceAndTheOtherButtonsKeepWorking() async throws {
        let seen = Seen()
        let reader = seen.reader([(.start, start), (.stop, stop)])
        try reader.start()
        defer { reader.stop() }
        start.send("p")
        #expect(await eventually { seen.edges == [Edge(button: .start, pressed: true)] })
        stop.send("e")
        let expected = ButtonFailure.line(.stop, SystemError(device: "stop-line", operation: "read edge event", errno: EIO))
        #expect(await eventually { seen.failures == [expected] })
        #expect(expected.description == "button stop: stop-line: read edge event failed: Input/output error (errno 5); ignored until restart")
        stop.send("p") // ignored from now on
        start.send("r")
        #expect(await eventually { seen.edges.count == 2 })
        #expect(seen.edges == [Edge(button: .start, pressed: true), Edge(button: .start, pressed: false)])
        #expect(seen.failures.count == 1, "once per line")
    }

    @Test func aLineWhoseFDIsNotOpenIsReportedInsteadOfSpunOn() async throws {
        let seen = Seen()
        let broken = PipeLine("stop-line", broken: true)
        let reader = seen.reader([(.start, start), (.stop, broken)])
        try reader.start()
        defer { reader.stop() }
        let expected = ButtonFailure.line(.stop, SystemError(device: "stop-line", operation: "poll edge events (POLLNVAL)", errno: EBADF))
        #expect(await eventually { seen.failures == [expected] })
        start.send("p")
        #expect(await eventually { seen.edges == [Edge(button: .start, pressed: true)] })
        // One poll saw POLLNVAL, one waited for the press, at most one more is waiting now;
        // polling the dead fd again would be a busy loop with thousands of polls by now.
        #expect(seen.polls <= 3, "POLLNVAL returns at once: polling it again would be a busy loop (\(seen.polls) polls)")
    }

    @Test func aPollFailureIsReportedAndEndsTheReader() async throws {
        let seen = Seen()
        let results = Mutex([(ready: Int32(-1), errno: EINTR), (ready: Int32(-1), errno: ENOMEM)])
        let reader = seen.reader([(.start, start), (.stop, stop)]) { _, _ in
            results.withLock { $0.isEmpty ? (0, 0) : $0.removeFirst() }
        }
        try reader.start()
        let expected = ButtonFailure.reader(SystemError(device: "button lines start start-line, stop stop-line", operation: "poll", errno: ENOMEM))
        #expect(await eventually { seen.failures == [expected] }, "EINTR retried, ENOMEM reported")
        #expect(expected.description.hasSuffix("Cannot allocate memory (errno 12); button reader stopped, no button works until restart"))
        reader.stop() // joins the ended thread: no poll can follow
        #expect(seen.polls == 2, "the thread ended after the failure")
        #expect(!reader.isRunning)
    }

    @Test func buttonServiceReadsUntilGracefulShutdownThenStopsTheReader() async throws {
        let seen = Seen()
        let reader = seen.reader([(.start, start)])
        let group = ServiceGroup(services: [ButtonService(reader: reader)], logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let running = Task { try await group.run() }
        start.send("p")
        #expect(await eventually { seen.edges.count == 1 }, "the service started the reader")
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!reader.isRunning, "stopped and joined")
        start.send("r") // the reader thread was joined: nobody can read this
        #expect(seen.edges == [Edge(button: .start, pressed: true)], "nothing is read after shutdown")
    }

    @Test func aReaderEndedByAPollFailureFailsTheService() async throws {
        let seen = Seen()
        let reader = seen.reader([(.start, start)]) { _, _ in (-1, ENOMEM) }
        let expected = ButtonFailure.reader(SystemError(device: "button lines start start-line", operation: "poll", errno: ENOMEM))
        await #expect(throws: expected, "run exits non-zero, so systemd restarts the service") {
            try await ButtonService(reader: reader).run()
        }
        #expect(!reader.isRunning, "joined")
    }

    @Test func everyLineFailingFailsTheService() async throws {
        let seen = Seen()
        let reader = seen.reader([(.start, start), (.stop, stop)])
        let service = Task { try await ButtonService(reader: reader).run() }
        start.send("e")
        stop.send("e")
        await #expect(throws: ButtonFailure.allLinesFailed(2)) { try await service.value }
        #expect(seen.failures.count == 2, "each line reported first")
        #expect(ButtonFailure.allLinesFailed(2).description == "all 2 button lines failed; button reader stopped")
    }

    @Test func buttonServiceCancelledStopsTheReader() async throws {
        let seen = Seen()
        let reader = seen.reader([(.start, start)])
        let running = Task { try await ButtonService(reader: reader).run() }
        start.send("p")
        #expect(await eventually { seen.edges.count == 1 })
        running.cancel()
        try await running.value
        #expect(!reader.isRunning)
    }
}

@Suite struct LockoutConversionTests {
    @Test func wholeSecondsCountAndNegativeIsNone() {
        #expect(Duration.milliseconds(30).clampedNanoseconds == 30_000_000)
        #expect(Duration.seconds(1).clampedNanoseconds == 1_000_000_000, "the whole second is not dropped")
        #expect(Duration.milliseconds(1500).clampedNanoseconds == 1_500_000_000)
        #expect(Duration.milliseconds(-5).clampedNanoseconds == 0)
        #expect(Duration.seconds(Int64.max).clampedNanoseconds == UInt64.max)
    }
}
