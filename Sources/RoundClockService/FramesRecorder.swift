import Hex
import Panels
import Platform
import RoundClockCore
import SegmentDisplay
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes the frames file: JSON Lines, one object each time a panel's shown content
/// changes, and one per buzzer signal.
///
///     {"t": 12.000, "panel": "time", "text": " 2:58", "phase": "work", "round": 1, "rounds": 12, "state": "running",
///      "ram": "<32 hex digits>", "brightness": 15, "blink": "off"}
///     {"t": 180.000, "signal": "warning"}
///
/// (one line each). `text`, `ram`, `brightness` and `blink` are what the chip holds
/// after the commit; `text` is decoded from that RAM.
public final class FramesRecorder: LoopObserver {
    /// Digits after the point in `t`: 3 in virtual time, 6 (microseconds) in real time.
    public let decimals: Int
    private let file: Mutex<TextFile>
    private let last = Mutex([PanelRole: PanelReadout]())

    /// Opens (truncates) `path` for writing; `-` is standard output (see `TextFile`).
    public init(path: String, decimals: Int) throws(FileError) {
        self.decimals = decimals
        self.file = Mutex(try TextFile(writingTo: path))
    }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {
        let changed = last.withLock { last in
            panels.filter { panel in
                defer { last[panel.role] = panel }
                return last[panel.role] != panel
            }
        }
        write(changed.map { Self.panelLine(t: t, decimals: decimals, panel: $0, status: status) + "\n" }.joined())
    }

    public func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        guard case .signal(let signal) = occurrence else { return }
        write("{\"t\": \(t.formattedSeconds(decimals: decimals)), \"signal\": \"\(signal.rawValue)\"}\n")
    }

    /// Flushes and closes the file; reports the first write error, if any.
    public func close() throws(FileError) {
        try file.withLock { file throws(FileError) in try file.close() }
    }

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        file.withLock { $0.write(text) }
    }

    static func panelLine(t: Duration, decimals: Int, panel: PanelReadout, status: Status) -> String {
        "{\"t\": \(t.formattedSeconds(decimals: decimals)), \"panel\": \"\(panel.role.rawValue)\", \"text\": \(jsonString(panel.text)), "
            + "\"phase\": \"\(status.phase.rawValue)\", \"round\": \(status.round), \"rounds\": \(status.rounds), \"state\": \"\(status.state.rawValue)\", "
            + "\"ram\": \"\(ramHex(panel.ram))\", \"brightness\": \(panel.brightness), \"blink\": \"\(panel.blink.name)\"}"
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += "\\u" + hex(scalar.value, digits: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// A file error naming the path and errno (or, when no syscall failed, the reason).
public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var errno: Int32
    public var reason: String?
    public var description: String {
        "\(path): \(operation) failed: \(reason ?? POSIXIO.describe(errno))"
    }
    /// sysexits.h: EX_CANTCREAT (73) when the file could not be opened or created,
    /// EX_IOERR (74) when writing to it failed.
    public var exitCode: Int32 { operation == "write" ? 74 : 73 }
}

/// A file opened for writing that never blocks its writer (the render loop): bytes go out
/// only while poll(2) says the descriptor can take them, at most `PIPE_BUF` (4096) at a
/// time (a write of up to PIPE_BUF bytes to a pipe that polls writable does not block);
/// the rest waits in memory for the next write. A reader that stops reading (a pipe left
/// full) therefore never stalls the clock: once `pendingLimit` bytes wait, writing stops
/// and `close` reports it (EX_IOERR). Write errors are remembered and reported on close.
struct TextFile: ~Copyable {
    let path: String
    private var fd: Int32
    private var pending: [UInt8] = []
    private var firstError: Int32 = 0
    private var reason: String?
    /// Bytes allowed to wait for a slow reader: 1 MiB (hours of frames).
    static let pendingLimit = 1 << 20
    /// How long `close` waits for a reader to take what is pending.
    static let closeWaitMilliseconds: Int32 = 2_000

    /// Opens `path` for writing without ever blocking: `-` is standard output; otherwise
    /// open(2) `O_WRONLY | O_CREAT | O_NONBLOCK` keeps it only if it is a regular file (then
    /// truncated) or a pipe some reader already holds open (`/dev/stdout` into a pipe, a
    /// FIFO being read; a FIFO with no reader fails at once with ENXIO instead of hanging).
    init(writingTo path: String) throws(FileError) {
        func fail(_ errno: Int32, _ reason: String? = nil) -> FileError {
            FileError(path: path, operation: "open for writing", errno: errno, reason: reason)
        }
        let fd: Int32
        if path == "-" {
            fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else { throw fail(Glibc.errno) }
        } else {
            switch POSIXIO.openWithoutBlocking(path, flags: O_WRONLY | O_CREAT, allowed: [.regular, .fifo]) {
            case .opened(let opened): fd = opened
            case .failed(_, let code):
                throw fail(code, code == ENXIO ? "a FIFO with no reader (open it for reading first, or use -)" : nil)
            case .wrongType(let type):
                throw fail(EINVAL, "is \(type.rawValue); use a regular file, a pipe that is open, or - for standard output")
            }
            var info = stat()
            if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, ftruncate(fd, 0) != 0 {
                let code = Glibc.errno
                Glibc.close(fd)
                throw fail(code)
            }
        }
        self.path = path
        self.fd = fd
    }

    mutating func write(_ text: String) {
        guard fd >= 0, firstError == 0 else { return }
        pending += text.utf8
        drain(waitingMilliseconds: 0)
        if firstError == 0, pending.count > Self.pendingLimit {
            stop(EAGAIN, "its reader stopped reading (\(pending.count) bytes were waiting; later frames are not written)")
        }
    }

    mutating func close() throws(FileError) {
        guard fd >= 0 else { return }
        if firstError == 0, !pending.isEmpty {
            drain(waitingMilliseconds: Self.closeWaitMilliseconds)
            if !pending.isEmpty { stop(EAGAIN, "its reader did not take the last \(pending.count) bytes within 2 s") }
        }
        if Glibc.close(fd) != 0, firstError == 0 { firstError = Glibc.errno }
        fd = -1
        if firstError != 0 { throw FileError(path: path, operation: "write", errno: firstError, reason: reason) }
    }

    /// Writes what is pending while the descriptor is writable, waiting at most
    /// `waitingMilliseconds` for it in all (0: not at all).
    private mutating func drain(waitingMilliseconds: Int32) {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .milliseconds(waitingMilliseconds))
        var written = 0
        defer { pending.removeFirst(min(written, pending.count)) }
        while written < pending.count {
            let left = Int32(max(0, (clock.now.duration(to: end) / .milliseconds(1)).rounded(.up)))
            var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let polled = poll(&ready, 1, left)
            if polled < 0 {
                if Glibc.errno == EINTR { continue }
                return stop(Glibc.errno)
            }
            guard polled > 0 else { return } // not writable now: the rest waits
            guard ready.revents & Int16(POLLOUT) != 0 else { return stop(EPIPE) } // POLLERR/POLLHUP: no reader
            let chunk = min(pending.count - written, Int(PIPE_BUF))
            let n = pending[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, chunk) }
            if n < 0 {
                if Glibc.errno == EINTR || Glibc.errno == EAGAIN { continue }
                return stop(Glibc.errno)
            }
            written += n
        }
    }

    private mutating func stop(_ errno: Int32, _ why: String? = nil) {
        firstError = errno
        reason = why
        pending = []
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }
}
