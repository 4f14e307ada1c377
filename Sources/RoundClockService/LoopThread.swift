#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The render loop's own thread, for the real clock: a `TaskExecutor` (SE-0417) that runs
/// the loop's task (and, through the task's executor preference, the display actor's code
/// it calls) and, between turns, blocks in ONE timed wait on the absolute deadline:
/// `pthread_cond_timedwait` on a condition variable set to CLOCK_MONOTONIC
/// (`pthread_condattr_setclock`). A display change then costs one wake-up of one thread
/// instead of a chain (Dispatch timer thread → pool thread → loop task, sleeper task,
/// actor hop). Button posts, other threads' jobs and cancellation signal the condition
/// variable, so they cut the wait short.
///
/// All mutable state is guarded by `condition`'s mutex.
public final class LoopThread: TaskExecutor, @unchecked Sendable {
    /// The thread's name (15 bytes at most), as `top -H` and /proc/PID/task/TID/comm show it.
    public static let name = "roundclock-loop"

    private let condition: MonotonicCondition
    private var jobs: [UnownedJob] = []
    /// The loop's pending wait, resumed at `deadline` (CLOCK_MONOTONIC) or by `interrupt()`.
    private var waiter: CheckedContinuation<Void, Never>?
    private var deadline: timespec?
    /// `interrupt()` came while nothing waited: the next wait returns at once.
    private var interrupted = false
    private var finishing = false

    /// Starts the thread.
    public init() throws(SystemError) {
        condition = try MonotonicCondition(owner: "render loop thread")
        do {
            // The thread holds the executor until `serve` returns (after `finish()`).
            try PosixThread.start(named: Self.name) { self.serve() }.detach()
        } catch {
            throw SystemError(device: "render loop thread", operation: "pthread_create", errno: error.errno)
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.locked { jobs.append(job) }
    }

    /// Ends the thread once its queued jobs have run (the loop's task has left it).
    public func finish() {
        condition.locked { finishing = true }
    }

    /// Resumes `continuation` at `deadline` (a CLOCK_MONOTONIC reading; nil: only when
    /// interrupted), or at once if `interrupt()` came since the last wait.
    func wait(until deadline: Duration?, _ continuation: CheckedContinuation<Void, Never>) {
        let now = condition.locked { () -> Bool in
            if interrupted {
                interrupted = false
                return true
            }
            waiter = continuation
            self.deadline = deadline.map(MonotonicCondition.timespec)
            return false
        }
        if now { continuation.resume() }
    }

    /// Ends the pending wait now (a button, a command, cancellation); with none pending,
    /// the next wait returns at once.
    func interrupt() {
        let resumed = condition.locked { () -> CheckedContinuation<Void, Never>? in
            guard let waiter else { interrupted = true; return nil }
            self.waiter = nil
            deadline = nil
            return waiter
        }
        resumed?.resume()
    }

    /// The thread's body: run jobs; with none, wait for one or for the deadline.
    private func serve() {
        condition.lock()
        while true {
            if !jobs.isEmpty {
                let batch = jobs
                jobs.removeAll(keepingCapacity: true)
                condition.unlock()
                for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
                condition.lock()
                continue
            }
            if finishing { break }
            if condition.wait(until: deadline), let due = waiter {
                waiter = nil
                deadline = nil
                condition.unlock()
                due.resume()  // enqueues the loop's task here: runs next
                condition.lock()
            }
        }
        condition.unlock()
    }

}
