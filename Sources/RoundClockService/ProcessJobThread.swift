import Platform

/// One thread for the `run` process's tasks: the services, their actors and the control
/// socket's replies run here instead of on libdispatch's worker pool, through a task
/// executor preference (SE-0417, `Task(executorPreference:)`), which child tasks inherit.
/// Public API only: a `Task.sleep` still goes through the runtime's global executor, and
/// code that leaves the preference (an unstructured `Task {}`) runs on the pool.
///
/// Jobs run one at a time in the order enqueued. The process's jobs are short (no job
/// blocks waiting for another: structured concurrency, no semaphores), which one thread needs.
public final class ProcessJobThread: TaskExecutor, @unchecked Sendable {
    /// The thread's name, as `top -H` and /proc/PID/task/TID/comm show it.
    public static let name = "roundclock-jobs"

    private let condition: MonotonicCondition
    private var ready: [UnownedJob] = []

    public init() throws(SystemError) {
        condition = try MonotonicCondition(owner: "job thread")
        do {
            try PosixThread.start(named: Self.name) { self.serve() }.detach()
        } catch {
            throw SystemError(device: "job thread", operation: "pthread_create", errno: error.errno)
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.locked { ready.append(job) }
    }

    /// The thread's body: run the ready jobs, else wait for one. Never ends: it serves
    /// the process until exit.
    private func serve() {
        condition.lock()
        while true {
            if !ready.isEmpty {
                let batch = ready
                ready.removeAll(keepingCapacity: true)
                condition.unlock()
                for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
                condition.lock()
                continue
            }
            _ = condition.wait(until: nil)
        }
    }
}
