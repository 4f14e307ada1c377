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
        let signals: [(Int64, String)] = [(10 * second, "start"), (20 * second, "end"), (30 * second, "finish")]
        // start heard 2 ms late (and its second strike 400 ms on, ignored), end 1 ms early,
        // finish not heard at all (the onset 1.2 s after it is too late to be its own).
        let onsets = [10 * second + 2 * ms, 10 * second + 402 * ms, 20 * second - 1 * ms, 31 * second + 200 * ms]
        let line = SoundOnsetBench.report(name: "test", onsets: onsets, signals: signals)
        #expect(line == "sound onsets (test): 2 of 3 signals heard, 1 missed; |onset - change| p50 1.00 ms, "
            + "p99 2.00 ms, max 2.00 ms; onset - change median -1.00 ms")
        #expect(SoundOnsetBench.report(name: "none", onsets: [], signals: signals)
            == "sound onsets (none): 3 signals, none heard (0 onsets)")
    }

    @Test func signalsAreReadFromAFramesFile() throws {
        let path = "/tmp/roundclock-onsets-\(getpid()).jsonl"
        defer { unlink(path) }
        let text = """
            {"t": 12.000000, "panel": "time", "text": " 0:05", "state": "running"}
            {"t": 12.000250, "signal": "start"}
            {"t": 17.5, "signal": "finish"}

            """
        let file: UnsafeMutablePointer<FILE> = try #require(fopen(path, "w"))
        fputs(text, file)
        fclose(file)
        let signals = try SoundOnsetBench.signals(inFramesFile: path)
        #expect(signals.map(\.0) == [12_000_250_000, 17_500_000_000])
        #expect(signals.map(\.1) == ["start", "finish"])
    }
}
