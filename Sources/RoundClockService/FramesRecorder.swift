import Hex
import JSON
import Panels
import Platform
import RoundClockCore
import SegmentDisplay
import Synchronization

/// Writes the frames file: JSON Lines, one object each time a panel's shown content
/// changes, and one per buzzer signal.
///
///     {"t": 12.000, "panel": "time", "text": " 2:58", "phase": "work", "round": 1, "rounds": 12, "state": "running",
///      "ram": "<32 hex digits>", "brightness": 15, "blink": "off"}
///     {"t": 180.000, "signal": "warning"}
///     {"t": 201.370, "signal": "end", "ahead": false}
///
/// A signal the loop could not announce ahead (one a press brought: a skip, a START) says so
/// with `"ahead": false`.
/// (one line each). `text`, `ram`, `brightness` and `blink` are what the chip holds
/// after the commit; `text` is decoded from that RAM. With a worker (`write(on:)`, `run`), the
/// render loop only formats the lines; the worker writes them, so a slow disk never holds
/// up a commit.
public final class FramesRecorder: DisplayObserver {
    /// Digits after the point in `t`: 3 in virtual time, 6 (microseconds) in real time.
    public let decimals: Int
    private let file: Mutex<TextFile>
    private let last = Mutex([PanelRole: PanelReadout]())
    /// Added to every `t`: zero (seconds since the start), or with `run --frames-clock
    /// monotonic` the start's CLOCK_MONOTONIC reading (`countFrom`).
    private let origin = Mutex(Duration.zero)
    /// Where the lines are written, and the lines formatted and not yet written there.
    private let worker = Mutex<BlockingWorker?>(nil)
    private let unwritten = Mutex("")
    private static let key = "frames"

    /// Opens (truncates) `path` for writing; `-` is standard output (see `TextFile`).
    public init(path: String, decimals: Int) throws(SystemError) {
        self.decimals = decimals
        self.file = Mutex(try TextFile(writingTo: path))
    }

    /// From now on `t` is `origin` + the time since the start (`run --frames-clock monotonic`:
    /// CLOCK_MONOTONIC, so the frames of several clocks on one host compare).
    public func countFrom(_ origin: Duration) {
        self.origin.withLock { $0 = origin }
    }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at since: Duration) {
        let t = since + origin.withLock { $0 }
        let changed = last.withLock { last in
            panels.filter { panel in
                defer { last[panel.role] = panel }
                return last[panel.role] != panel
            }
        }
        write(changed.map { Self.panelLine(t: t, decimals: decimals, panel: $0, status: status) + "\n" }.joined())
    }

    public func occurred(_ occurrence: LoopOccurrence, at since: Duration) {
        guard case .signal(let signal, let ahead) = occurrence else { return }
        let t = since + origin.withLock { $0 }
        let unannounced = ahead ? "" : ", \"ahead\": false"
        write("{\"t\": \(t.formattedSeconds(decimals: decimals)), \"signal\": \"\(signal.rawValue)\"\(unannounced)}\n")
    }

    /// From now on the lines are written on `worker` (set before the loop runs).
    public func write(on worker: BlockingWorker) {
        self.worker.withLock { $0 = worker }
    }

    /// Waits until the worker has written every line, then flushes and closes the file;
    /// reports the first write error, if any.
    public func finish() async throws(SystemError) {
        await worker.withLock { $0 }?.drain()
        writeUnwritten()
        try file.withLock { file throws(SystemError) in try file.close() }
    }

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        guard let worker = worker.withLock({ $0 }) else { return file.withLock { $0.write(text) } }
        unwritten.withLock { $0 += text }
        worker.post(Self.key) { [self] in writeUnwritten() }
    }

    /// The worker's job: what the loop formatted since the last one, in order.
    private func writeUnwritten() {
        let text = unwritten.withLock { text in
            defer { text = "" }
            return text
        }
        guard !text.isEmpty else { return }
        file.withLock { $0.write(text) }
    }

    static func panelLine(t: Duration, decimals: Int, panel: PanelReadout, status: Status) -> String {
        "{\"t\": \(t.formattedSeconds(decimals: decimals)), \"panel\": \"\(panel.role.rawValue)\", \"text\": \(jsonString(panel.text)), "
            + "\"phase\": \"\(status.phase.rawValue)\", \"round\": \(status.round), \"rounds\": \(status.rounds), \"state\": \"\(status.state.rawValue)\", "
            + "\"ram\": \"\(ramHex(panel.ram))\", \"brightness\": \(panel.brightness), \"blink\": \"\(panel.blink.name)\"}"
    }

    /// A JSON string, escaped by the tree's one JSON writer (`JSONValue.quoted`).
    static func jsonString(_ s: String) -> String { JSONValue.quoted(s) }
}
