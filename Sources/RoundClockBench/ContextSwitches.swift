#if canImport(Glibc)
import Glibc
import Platform
#endif

/// Context switches (voluntary + involuntary) of the process, less those of the load
/// threads, over a window inside a run: what the loops under test cost the scheduler.
/// Process-wide from getrusage(RUSAGE_SELF) `ru_nvcsw + ru_nivcsw` (every thread, exited
/// ones included); per thread from /proc/self/task/TID/status
/// (`voluntary_ctxt_switches`, `nonvoluntary_ctxt_switches`) and its name from `comm`.
public struct ContextSwitchSample: Sendable {
    public var process: Int
    /// Living threads: tid -> (name, switches so far).
    public var threads: [Int32: (name: String, switches: Int)]

    public static func now() -> ContextSwitchSample {
        var threads: [Int32: (name: String, switches: Int)] = [:]
        for tid in SystemInfo.threadIDs() {
            let base = "/proc/self/task/\(tid)/"
            guard let status = SystemInfo.readText(base + "status") else { continue }
            let name = (SystemInfo.readText(base + "comm") ?? "?").trimmed
            threads[tid] = (name, switches(inStatus: status))
        }
        let (voluntary, involuntary) = SystemInfo.contextSwitches()
        return ContextSwitchSample(process: voluntary + involuntary, threads: threads)
    }

    /// voluntary_ctxt_switches + nonvoluntary_ctxt_switches of one /proc status file.
    static func switches(inStatus text: String) -> Int {
        text.split(separator: "\n").reduce(0) { sum, line in
            guard line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") else { return sum }
            return sum + (Int(line.split(separator: ":").last?.trimmed ?? "") ?? 0)
        }
    }
}

/// Context switches per second between two samples.
public struct ContextSwitchRates: Sendable {
    /// The whole process less the load threads.
    public var process: Double
    /// The render loop's own thread (`LoopThread.name`), when it ran on one.
    public var loopThread: Double?
    /// The other living threads, by name (exited threads count only in `process`).
    public var others: [String: Double]
    public var seconds: Double

    /// `load`: thread ids left out of `process` (the `--load` spinners).
    public init(from a: ContextSwitchSample, to b: ContextSwitchSample, seconds: Double, load: [Int32], loopThreadName: String) {
        let loadSwitches = load.reduce(0) { $0 + (b.threads[$1]?.switches ?? 0) - (a.threads[$1]?.switches ?? 0) }
        process = Double(b.process - a.process - loadSwitches) / seconds
        let loop = b.threads.filter { $0.value.name == loopThreadName }.map { tid, thread in
            thread.switches - (a.threads[tid]?.switches ?? 0)
        }
        loopThread = loop.isEmpty ? nil : Double(loop.reduce(0, +)) / seconds
        var others: [String: Double] = [:]
        for (tid, thread) in b.threads where thread.name != loopThreadName && !load.contains(tid) {
            others[thread.name, default: 0] += Double(thread.switches - (a.threads[tid]?.switches ?? 0)) / seconds
        }
        self.others = others.filter { $0.value > 0 }
        self.seconds = seconds
    }
}

/// Takes the two samples of a window on a plain thread of its own that sleeps with
/// clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) until each end: two wake-ups in all. A
/// long Swift sleep instead would keep a Dispatch timer armed, and Dispatch's manager thread
/// wakes every second while one is (seen with strace): counted, it would double ours.
// @unchecked: `samples` is written by the window's thread only and read after `pthread_join`, an order the compiler cannot see.
final class ContextSwitchWindow: @unchecked Sendable {
    private let ends: (from: timespec, to: timespec)
    /// Written by the thread only, read after `pthread_join`.
    private var samples: (first: ContextSwitchSample, last: ContextSwitchSample)?
    private var thread: PosixThread?

    /// `from`, `to`: CLOCK_MONOTONIC readings.
    init(from: Duration, to: Duration) {
        func ts(_ d: Duration) -> timespec { timespec(tv_sec: Int(d.components.seconds), tv_nsec: Int(d.components.attoseconds / 1_000_000_000)) }
        ends = (ts(from), ts(to))
        // Without a thread there is no window: `finish()` returns nil.
        thread = try? PosixThread.start(named: "switch-window") { [self] in
            sleepUntil(ends.from, on: CLOCK_MONOTONIC)
            let first = ContextSwitchSample.now()
            sleepUntil(ends.to, on: CLOCK_MONOTONIC)
            samples = (first, ContextSwitchSample.now())
        }
    }

    /// Waits for the thread (the window has ended) and returns the pair of samples.
    func finish() -> (first: ContextSwitchSample, last: ContextSwitchSample)? {
        guard let thread else { return nil }
        thread.join()
        self.thread = nil
        return samples
    }
}
