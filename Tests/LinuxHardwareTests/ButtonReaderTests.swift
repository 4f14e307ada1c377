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

/// A button line made of a pipe, watched by the event loop like a GPIO event fd. The
/// test writes `p` (pressed), `r` (released) or `e` (that read fails with EIO), or hangs
/// up (EPOLLHUP, as a GPIO chip that went away).
// @unchecked: `level` is touched only on the event loop's thread, and `writeFD` only on the test's.
final class PipeLine: InputLine, @unchecked Sendable {
    let name: String
    private let readFD: Int32
    private var writeFD: Int32
    private let notOpen: Int32?
    private var level = false

    /// `broken`: the event fd is one that is not open (epoll refuses it: EBADF).
    init(_ name: String, broken: Bool = false) {
        self.name = name
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        readFD = fds[0]
        writeFD = fds[1]
        if broken {
            // Far above the fds in use, so pipe(2) in the reader cannot reuse it.
            let fd = fcntl(fds[0], F_DUPFD_CLOEXEC, 900)
            close(fd)
            notOpen = fd
        } else {
            notOpen = nil
        }
    }

    deinit { for fd in [readFD, writeFD] where fd >= 0 { close(fd) } }

    /// Closes the writing end: the reading end reports EPOLLHUP from now on.
    func hangUp() {
        close(writeFD)
        writeFD = -1
    }

    var description: String { name }
    var eventFD: Int32 { notOpen ?? readFD }

    func send(_ code: Character) {
        var byte = code.asciiValue!
        _ = write(writeFD, &byte, 1)
    }

    func readEvent() throws(SystemError) -> (active: Bool, timestampNanoseconds: UInt64) {
        var byte: UInt8 = 0
        guard read(readFD, &byte, 1) == 1, byte != UInt8(ascii: "e") else {
            throw SystemError(device: name, operation: "read edge event", errno: EIO)
        }
        level = byte == UInt8(ascii: "p")
        return (level, monotonicNanoseconds())
    }

    func value() throws(SystemError) -> Bool { level }
}

/// What the reader delivered, from the event loop's thread.
final class Seen: Sendable {
    struct Edge: Equatable { var button: Button; var pressed: Bool }
    private let state = Mutex((edges: [Edge](), failures: [ButtonFailure]()))
    var edges: [Edge] { state.withLock { $0.edges } }
    var failures: [ButtonFailure] { state.withLock { $0.failures } }

    /// A reader on `lines` (no lockout) that records here.
    func reader(_ lines: [(Button, PipeLine)]) -> ButtonReader {
        ButtonReader(lines: lines.map { ($0.0, $0.1 as any InputLine) }, lockout: .zero,
                     onFailure: { failure in self.state.withLock { $0.failures.append(failure) } },
                     handler: { button, pressed, _ in self.state.withLock { $0.edges.append(Edge(button: button, pressed: pressed)) } })
    }
}

@Suite struct ButtonReaderTests {
    typealias Edge = Seen.Edge
    let start = PipeLine("start-line"), stop = PipeLine("stop-line")

    /// Each test's own event loop.
    let loop: EventLoop

    init() throws {
        loop = try EventLoop(name: "test-buttons")
    }

    @Test func aFailingLineIsReportedOnceAndTheOtherButtonsKeepWorking() async throws {
        defer { loop.finish() }
        let seen = Seen()
        let reader = seen.reader([(.start, start), (.stop, stop)])
        reader.start(on: loop)
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

    @Test func aLineWhoseFDIsNotOpenIsReportedAndTheOthersWork() async throws {
        defer { loop.finish() }
        let seen = Seen()
        let broken = PipeLine("stop-line", broken: true)
        let reader = seen.reader([(.start, start), (.stop, broken)])
        reader.start(on: loop)
        defer { reader.stop() }
        let expected = ButtonFailure.line(.stop, SystemError(device: "stop-line", operation: "watch edge events", errno: EBADF))
        #expect(await eventually { seen.failures == [expected] })
        start.send("p")
        #expect(await eventually { seen.edges == [Edge(button: .start, pressed: true)] })
    }

    @Test func aLineThatHangsUpIsReportedOnceAndNeverWatchedAgain() async throws {
        defer { loop.finish() }
        let seen = Seen()
        let reader = seen.reader([(.start, start), (.stop, stop)])
        reader.start(on: loop)
        defer { reader.stop() }
        stop.hangUp()
        let expected = ButtonFailure.line(.stop, SystemError(device: "stop-line", operation: "wait for edge events (EPOLLHUP)", errno: ENODEV))
        #expect(await eventually { seen.failures == [expected] })
        // A hang-up stays reported while the descriptor is watched: watched again, the loop
        // would spin on it and the other line's edges would still come, but so would more
        // failures. Edges in both directions round-trip through the loop meanwhile.
        for level in ["p", "r", "p", "r"] {
            let before = seen.edges.count
            start.send(Character(level))
            #expect(await eventually { seen.edges.count == before + 1 })
        }
        #expect(seen.failures == [expected], "reported once")
    }

    @Test func buttonServiceReadsUntilGracefulShutdownThenStopsTheReader() async throws {
        defer { loop.finish() }
        let seen = Seen()
        let reader = seen.reader([(.start, start)])
        let group = ServiceGroup(services: [ButtonService(reader: reader, loop: loop)],
                                 logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let running = Task { try await group.run() }
        start.send("p")
        #expect(await eventually { seen.edges.count == 1 }, "the service started the reader")
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!reader.isRunning, "stopped")
        start.send("r")
        // The loop still runs work (it is not stuck), and the line is no longer watched.
        let alive = Mutex(false)
        loop.execute { alive.withLock { $0 = true } }
        #expect(await eventually { alive.withLock { $0 } })
        #expect(seen.edges == [Edge(button: .start, pressed: true)], "nothing is read after shutdown")
    }

    @Test func everyLineFailingFailsTheService() async throws {
        defer { loop.finish() }
        let seen = Seen()
        let reader = seen.reader([(.start, start), (.stop, stop)])
        let service = Task { [loop] in try await ButtonService(reader: reader, loop: loop).run() }
        #expect(await eventually { reader.isRunning })
        start.send("e")
        stop.send("e")
        await #expect(throws: ButtonFailure.allLinesFailed(2), "run exits non-zero, so systemd restarts the service") {
            try await service.value
        }
        #expect(seen.failures.count == 2, "each line reported first")
        #expect(ButtonFailure.allLinesFailed(2).description == "all 2 button lines failed; button reader stopped")
    }

    @Test func buttonServiceCancelledStopsTheReader() async throws {
        defer { loop.finish() }
        let seen = Seen()
        let reader = seen.reader([(.start, start)])
        let running = Task { [loop] in try await ButtonService(reader: reader, loop: loop).run() }
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
