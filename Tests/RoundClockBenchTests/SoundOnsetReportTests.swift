#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RoundClockBench

/// `sound-onsets`' arithmetic: each signal of the frames file matched with the first onset
/// heard from 100 ms before it to 1 s after it.
@Suite struct SoundOnsetReportTests {
    @Test func eachSignalTakesTheFirstOnsetNearIt() {
        let second: Int64 = 1_000_000_000, ms: Int64 = 1_000_000
        let signals = [(10 * second, "start"), (20 * second, "end"), (30 * second, "finish")].map {
            SoundOnsetBench.FramesSignal(nanoseconds: $0.0, name: $0.1)
        }
        // start heard 2 ms late (and its second strike 400 ms on, ignored), end 1 ms early,
        // finish not heard at all (the onset 1.2 s after it is too late to be its own).
        let onsets = [10 * second + 2 * ms, 10 * second + 402 * ms, 20 * second - 1 * ms, 31 * second + 200 * ms]
        let line = SoundOnsetBench.report(name: "test", onsets: onsets, signals: signals)
        #expect(line == "sound onsets (test): 2 of 3 signals heard, 1 missed; |onset - change| p50 1.00 ms, "
            + "p99 2.00 ms, max 2.00 ms; onset - change median -1.00 ms")
        #expect(SoundOnsetBench.report(name: "none", onsets: [], signals: signals)
            == "sound onsets (none): 3 signals, none heard (0 onsets)")
    }

    @Test func signalsAPressBroughtAreCountedApart() {
        let second: Int64 = 1_000_000_000, ms: Int64 = 1_000_000
        let signals = [SoundOnsetBench.FramesSignal(nanoseconds: 10 * second, name: "start"),
                       SoundOnsetBench.FramesSignal(nanoseconds: 20 * second, name: "end", ahead: false),
                       SoundOnsetBench.FramesSignal(nanoseconds: 30 * second, name: "start")]
        let onsets = [10 * second + 1 * ms, 20 * second + 30 * ms, 30 * second - 3 * ms]
        #expect(SoundOnsetBench.groups(onsets: onsets, signals: signals) == """
              announced ahead: 2 of 2 signals heard, 0 missed; |onset - change| p50 1.00 ms, p99 3.00 ms, max 3.00 ms; \
            onset - change median -3.00 ms
              after a press: 1 of 1 signals heard, 0 missed; |onset - change| p50 30.00 ms, p99 30.00 ms, max 30.00 ms; \
            onset - change median 30.00 ms
            """)
        #expect(SoundOnsetBench.details(onsets: onsets, signals: signals).split(separator: "\n")[1]
            == "  t 20.000 end (after a press): 30.00 ms")
    }

    @Test func signalsAreReadFromAFramesFile() throws {
        let path = "/tmp/roundclock-onsets-\(getpid()).jsonl"
        defer { unlink(path) }
        // Ten minutes of real time with three panels is well over 64 KiB.
        let panels = String(repeating: #"{"t": 11.000000, "panel": "time", "text": " 0:06", "state": "running"}"# + "\n", count: 3_000)
        let text = panels + """
            {"t": 12.000000, "panel": "time", "text": " 0:05", "state": "running"}
            {"t": 12.000250, "signal": "start"}
            {"t": 17.5, "signal": "finish"}
            {"t": 19.25, "signal": "end", "ahead": false}

            """
        let file: UnsafeMutablePointer<FILE> = try #require(fopen(path, "w"))
        fputs(text, file)
        fclose(file)
        let signals = try SoundOnsetBench.signals(inFramesFile: path)
        #expect(signals.map(\.nanoseconds) == [12_000_250_000, 17_500_000_000, 19_250_000_000])
        #expect(signals.map(\.name) == ["start", "finish", "end"])
        #expect(signals.map(\.ahead) == [true, true, false])
    }
}
