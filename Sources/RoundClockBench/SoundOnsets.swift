#if canImport(Glibc)
import Glibc
#endif
import CALSA
import JSON
import Platform
import Sound

/// `roundclock-bench sound-onsets`: records a capture device (the other end of ALSA's
/// loopback card, `snd-aloop`) for a while, finds where each sound begins on CLOCK_MONOTONIC
/// from the device's own position timestamps, and compares those onsets with the signals
/// of a frames file written with `--frames-clock monotonic`: onset − display change.
public struct SoundOnsetBench: Sendable {
    public var device: String
    public var seconds: Double
    public var framesFile: String
    public var name: String
    public var rate = 48_000
    /// About -40 dBFS: far above the loopback's digital silence, reached in the first
    /// millisecond of every built-in sound (the horn's 20 ms attack included).
    public var threshold = 300
    /// Silence before an onset: a strike 400 ms after another still ringing is not one.
    public var quietMilliseconds = 50

    public init(device: String, seconds: Double, framesFile: String, name: String) {
        self.device = device
        self.seconds = seconds
        self.framesFile = framesFile
        self.name = name
    }

    /// Records, then reads the frames file and reports.
    public func run() throws(SystemError) -> String {
        let onsets = try record()
        let signals = try Self.signals(inFramesFile: framesFile)
        return [Self.report(name: name, onsets: onsets, signals: signals), Self.groups(onsets: onsets, signals: signals),
                Self.details(onsets: onsets, signals: signals)].joined(separator: "\n")
    }

    /// The onsets heard in `seconds` of capture, in CLOCK_MONOTONIC nanoseconds.
    public func record() throws(SystemError) -> [Int64] {
        rc_alsa_quiet()
        var handle: OpaquePointer?
        var rc = rc_pcm_open_capture(&handle, device)
        guard rc >= 0, let pcm = handle else { throw Self.error(device, "snd_pcm_open (capture)", rc) }
        defer { rc_pcm_close(pcm) }
        var grantedRate = UInt32(rate), channels: UInt32 = 1
        var period: UInt = 0, buffer: UInt = 0
        rc = rc_pcm_configure(pcm, &grantedRate, &channels, 10_000, 1_000_000, &period, &buffer)
        guard rc >= 0 else { throw Self.error(device, "configure (S16_LE, \(rate) Hz)", rc) }
        rc = rc_pcm_start(pcm)
        guard rc >= 0 else { throw Self.error(device, "snd_pcm_start", rc) }
        StandardStream.error.write("recording \(device) at \(grantedRate) Hz\n")
        let frameRate = Int64(grantedRate), width = Int(channels)
        var detector = OnsetDetector(threshold: threshold, quietFrames: quietMilliseconds * Int(grantedRate) / 1_000)
        var onsets: [Int64] = []
        var read: Int64 = 0
        var overruns = 0
        let end = Self.monotonic() + Int64(seconds * 1e9)
        var block = [Int16](repeating: 0, count: Int(buffer) * width)
        while Self.monotonic() < end {
            rc = rc_pcm_wait(pcm, 100)
            var avail: UInt = 0
            var stamped: Int64 = 0
            if rc >= 0 { rc = rc_pcm_position(pcm, &avail, &stamped) }
            if rc == -EPIPE || rc == -ESTRPIPE {
                // An overrun (this process was late): what the card played meanwhile is lost;
                // the recording goes on from the device's new position.
                overruns += 1
                rc = rc_pcm_recover(pcm, rc)
                if rc >= 0 { rc = rc_pcm_start(pcm) }
                if rc < 0 { throw Self.error(device, "snd_pcm_recover", rc) }
                continue
            }
            if rc < 0 { throw Self.error(device, "snd_pcm_wait/htimestamp", rc) }
            guard avail > 0 else { continue }
            let wanted = min(Int(avail), Int(buffer))
            let got = block.withUnsafeMutableBufferPointer { rc_pcm_read(pcm, $0.baseAddress, UInt(wanted)) }
            if got == -Int(EPIPE) { continue }
            if got < 0 { throw Self.error(device, "snd_pcm_readi", Int32(got)) }
            // The frame at the device's pointer when `stamped` was taken: all read before, plus
            // what was waiting then.
            let pointer = read + Int64(avail)
            for frame in detector.onsets(in: Array(block[0..<got * width]), channels: width) {
                onsets.append(stamped - (pointer - frame) * 1_000_000_000 / frameRate)
            }
            read += Int64(got)
        }
        if overruns > 0 { StandardStream.error.write("\(overruns) overruns while recording \(device)\n") }
        return onsets
    }

    /// A signal line of a frames file: its instant in nanoseconds, its name, and whether the
    /// clock announced it ahead (a press's signal says `"ahead": false`).
    public struct FramesSignal: Sendable, Equatable {
        public var nanoseconds: Int64
        public var name: String
        public var ahead = true
    }

    /// The longest frames file read: a day of real time with three panels is a few MiB.
    static let framesFileLimit = 64 << 20

    /// The signals of a frames file (`{"t": ..., "signal": ...}` lines).
    public static func signals(inFramesFile path: String) throws(SystemError) -> [FramesSignal] {
        let text = try SmallFiles.readText(path, limit: framesFileLimit)
        var out: [FramesSignal] = []
        let parser = JSONParser()
        for line in text.split(separator: "\n") where line.contains("\"signal\"") {
            guard let value = try? parser.parse(String(line)), let signal = value["signal"]?.string,
                  case .number(let t)? = value["t"], let seconds = Double(t) else { continue }
            let ahead = if case .bool(false)? = value["ahead"] { false } else { true }
            out.append(FramesSignal(nanoseconds: Int64((seconds * 1e9).rounded()), name: signal, ahead: ahead))
        }
        return out
    }

    /// Each signal's onset: the first one from 100 ms before to 1 s after it (an `aplay`
    /// started at the change can take most of that).
    public static func offsets(onsets: [Int64], signals: [FramesSignal]) -> [Double?] {
        signals.map { signal in
            let at = signal.nanoseconds
            return onsets.first { $0 >= at - 100_000_000 && $0 < at + 1_000_000_000 }.map { Double($0 - at) / 1e6 }
        }
    }

    /// One line per signal: its `t`, its name and onset − change (or `not heard`).
    public static func details(onsets: [Int64], signals: [FramesSignal]) -> String {
        zip(signals, offsets(onsets: onsets, signals: signals)).map { signal, offset in
            "  t \(fixed(Double(signal.nanoseconds) / 1e9, 3)) \(signal.name)\(signal.ahead ? "" : " (after a press)"): "
                + (offset.map { "\(fixed($0, 2)) ms" } ?? "not heard")
        }.joined(separator: "\n")
    }

    /// The summary line: how many signals were heard, |onset − change| and its sign.
    public static func report(name: String, onsets: [Int64], signals: [FramesSignal]) -> String {
        "sound onsets (\(name)): " + summary(offsets(onsets: onsets, signals: signals), onsets: onsets.count)
    }

    /// The same apart for the signals announced ahead (on the program's boundaries) and those
    /// a press brought (a START, a skip), whose sound can only start once the press is seen.
    public static func groups(onsets: [Int64], signals: [FramesSignal]) -> String {
        let offsets = Self.offsets(onsets: onsets, signals: signals)
        return [(true, "announced ahead"), (false, "after a press")].compactMap { ahead, label in
            let group = zip(signals, offsets).filter { $0.0.ahead == ahead }.map(\.1)
            return group.isEmpty ? nil : "  \(label): " + summary(group, onsets: onsets.count)
        }.joined(separator: "\n")
    }

    private static func summary(_ matched: [Double?], onsets: Int) -> String {
        let offsets = matched.compactMap { $0 }
        guard let spread = LatencySummary(offsets.map(abs)), let signed = LatencySummary(offsets) else {
            return "\(matched.count) signals, none heard (\(onsets) onsets)"
        }
        return "\(offsets.count) of \(matched.count) signals heard, \(matched.count - offsets.count) missed; "
            + "|onset - change| p50 \(fixed(spread.p50, 2)) ms, p99 \(fixed(spread.p99, 2)) ms, max \(fixed(spread.max, 2)) ms; "
            + "onset - change median \(fixed(signed.p50, 2)) ms"
    }

    static func monotonic() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    static func error(_ device: String, _ operation: String, _ rc: Int32) -> SystemError {
        SystemError(device: "sound device \"\(device)\"", operation: operation, errno: -rc,
                    reason: -rc > 0 && -rc < 4096 ? nil : String(cString: rc_alsa_error(rc)))
    }
}
