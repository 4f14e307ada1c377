#if canImport(Glibc)
import Glibc
#endif
import LinuxHardware
import Platform

/// `--fifo`: SCHED_FIFO and 1 ns timer slack for the threads that run the loops, when the
/// process is allowed to (CAP_SYS_NICE or an RLIMIT_RTPRIO). Both are per-thread settings
/// on Linux and Swift's cooperative pool owns its threads, so this is applied to every
/// thread of the process listed in /proc/self/task except `excluding` (the busy load
/// threads, which must never run at real-time priority): sched_setscheduler(tid) for the
/// policy, /proc/TID/timerslack_ns for the slack (prctl(PR_SET_TIMERSLACK) only
/// reaches the calling thread). Threads the pool creates later may inherit neither, so
/// the bench applies it again once the loops are running.
public enum Realtime {
    public struct Outcome: Sendable, CustomStringConvertible {
        public var fifoSet = 0
        public var fifoFailed: [Int32: Int32] = [:]
        public var slackSet = 0
        public var slackFailed = 0
        public var description: String {
            let errs = Set(fifoFailed.values).map { SystemError.words($0) }.sorted().joined(separator: ", ")
            return "SCHED_FIFO on \(fifoSet) threads" + (fifoFailed.isEmpty ? "" : ", refused on \(fifoFailed.count) (\(errs))")
                + "; timer slack 1 ns on \(slackSet) threads" + (slackFailed > 0 ? ", refused on \(slackFailed)" : "")
        }
        public var permitted: Bool { fifoSet > 0 && fifoFailed.isEmpty }
    }

    /// Priority 10 of 1...99: above every normal thread, below the kernel's own RT threads.
    public static func apply(excluding: [Int32], priority: Int32 = 10) -> Outcome {
        var outcome = Outcome()
        var param = sched_param(sched_priority: priority)
        for tid in SystemInfo.threadIDs() where !excluding.contains(tid) {
            if sched_setscheduler(tid, SCHED_FIFO, &param) == 0 { outcome.fifoSet += 1 } else { outcome.fifoFailed[tid] = errno }
            if (try? writeSysfsAttribute("/proc/\(tid)/timerslack_ns", "1")) != nil { outcome.slackSet += 1 } else { outcome.slackFailed += 1 }
        }
        return outcome
    }
}
