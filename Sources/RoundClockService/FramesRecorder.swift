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
            + "\"phase\": \"\(status.phase)\", \"round\": \(status.round), \"rounds\": \(status.rounds), \"state\": \"\(status.state)\", "
            + "\"ram\": \"\(ramHex(panel.ram))\", \"brightness\": \(panel.brightness), \"blink\": \"\(panel.blink.name)\"}"
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
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

/// A C stdio file opened for writing; write errors are remembered and reported on close.
struct TextFile: ~Copyable {
    let path: String
    private var handle: UnsafeMutablePointer<FILE>?
    private var firstError: Int32 = 0

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
        guard let handle = fdopen(fd, "w") else {
            let code = Glibc.errno
            Glibc.close(fd)
            throw fail(code)
        }
        self.path = path
        self.handle = handle
    }

    mutating func write(_ text: String) {
        guard let handle, firstError == 0 else { return }
        if fputs(text, handle) < 0 || fflush(handle) != 0 { firstError = Glibc.errno }
    }

    mutating func close() throws(FileError) {
        guard let handle else { return }
        self.handle = nil
        if fclose(handle) != 0, firstError == 0 { firstError = Glibc.errno }
        if firstError != 0 { throw FileError(path: path, operation: "write", errno: firstError) }
    }

    deinit { if let handle { fclose(handle) } }
}
