#if canImport(Glibc)
import Glibc
#endif
import Platform

/// One thread that runs the jobs Swift's runtime would hand to libdispatch's worker pool
/// (everything not on the render loop's `LoopThread` or another thread of ours): the
/// services' tasks, actors, `Task.sleep` timers. Installed by `ConcurrencyTakeover` in the
/// `run` process, so libdispatch never starts its pool and with it the pool monitor, a
/// timer on its manager thread that fires every second for the life of the process
/// (`_dispatch_workq_init_once`, swift-corelibs-libdispatch src/event/workqueue.c): the
/// one wake-up per second that nothing of ours asked for (docs/benchmarks.md).
///
/// Jobs run one at a time in the order enqueued; timed jobs (`Task.sleep`) are kept in
/// deadline order and run when their CLOCK_MONOTONIC deadline has passed, from one
/// `pthread_cond_timedwait` on the earliest. The process's jobs are short (no job blocks
/// waiting for another: structured concurrency, no semaphores), which one thread needs.
final class ProcessJobThread: SerialExecutor, @unchecked Sendable {
    /// The thread's name, as `top -H` and /proc/PID/task/TID/comm show it.
    static let name = "roundclock-jobs"

    private let condition: MonotonicCondition
    private var ready: [UnownedJob] = []
    /// Timed jobs, sorted by (deadline, order of arrival).
    private var timed: [(deadline: Duration, order: UInt64, job: UnownedJob)] = []
    private var arrivals: UInt64 = 0

    init() throws(SystemError) {
        condition = try MonotonicCondition(owner: "job thread")
        do {
            try PosixThread.start(named: Self.name) { self.serve() }.detach()
        } catch {
            throw SystemError(device: "job thread", operation: "pthread_create", errno: error.errno)
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job))
    }

    func enqueue(_ job: UnownedJob) {
        condition.locked { ready.append(job) }
    }

    /// Runs `job` once CLOCK_MONOTONIC reads `deadline` or later.
    func enqueue(_ job: UnownedJob, atMonotonic deadline: Duration) {
        condition.locked {
            arrivals += 1
            let entry = (deadline: deadline, order: arrivals, job: job)
            let index = timed.firstIndex { ($0.deadline, $0.order) > (deadline, entry.order) } ?? timed.endIndex
            timed.insert(entry, at: index)
        }
    }

    /// The thread's body: move due timed jobs to the ready ones, run those, else wait for a
    /// job or the earliest deadline. Never ends: it serves the process until exit.
    private func serve() {
        condition.lock()
        while true {
            if !timed.isEmpty {
                let now = BootTime.read(CLOCK_MONOTONIC)
                let due = timed.prefix { $0.deadline <= now }.count
                ready.append(contentsOf: timed.prefix(due).map(\.job))
                timed.removeFirst(due)
            }
            if !ready.isEmpty {
                let batch = ready
                ready.removeAll(keepingCapacity: true)
                condition.unlock()
                for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
                condition.lock()
                continue
            }
            _ = condition.wait(until: timed.first.map { MonotonicCondition.timespec($0.deadline) })
        }
    }

}
