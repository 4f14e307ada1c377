#if canImport(Glibc)
import Glibc
#endif
import Platform

/// One thread for work that may block on a disk (the state file's writes and fsyncs), so the
/// render loop never waits for one. A job is posted under a key and replaces the job of that
/// key not yet started: the queue holds at most one job per key however fast they come, and
/// the newest is the one that runs. Jobs run one at a time in the order their keys were
/// queued; a job may be due later (`after`, a retry), on CLOCK_MONOTONIC. The thread blocks in
/// one wait while nothing is due: it costs no wake-up of its own.
public final class BlockingWorker: @unchecked Sendable {
    /// The thread's name, as `top -H` and /proc/PID/task/TID/comm show it.
    public static let name = "roundclock-work"

    private struct Entry {
        var key: String
        /// CLOCK_MONOTONIC reading; `nil`: now.
        var due: Duration?
        var job: @Sendable () -> Void
    }

    private let condition: MonotonicCondition
    // Guarded by the condition's mutex.
    private var queue: [Entry] = []
    private var stopping = false
    private var markers: UInt64 = 0

    /// Starts the thread, named `name` (the voice renders on one of its own,
    /// `roundclock-voice`).
    public init(name: String = BlockingWorker.name) throws(SystemError) {
        condition = try MonotonicCondition(owner: "worker thread")
        do {
            try PosixThread.start(named: name) { self.serve() }.detach()
        } catch {
            throw SystemError(device: "worker thread", operation: "pthread_create", errno: error.errno)
        }
    }

    /// Queues `job` under `key`, due now or `after` from now, replacing the job of `key` not
    /// yet started; a replaced job that was due earlier keeps that earlier instant.
    public func post(_ key: String, after delay: Duration? = nil, _ job: @escaping @Sendable () -> Void) {
        let due = delay.map { MonotonicClock.read() + $0 }
        condition.locked {
            guard !stopping else { return }
            if let index = queue.firstIndex(where: { $0.key == key }) {
                let earlier = queue[index].due.flatMap { old in due.map { min(old, $0) } }
                queue[index] = Entry(key: key, due: earlier, job: job)
            } else {
                queue.append(Entry(key: key, due: due, job: job))
            }
        }
    }

    /// Returns once every job due now that was queued before the call has run (a job due
    /// later is not waited for).
    public func drain() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let posted = condition.locked { () -> Bool in
                guard !stopping else { return false }
                markers += 1
                queue.append(Entry(key: "\u{0}drain \(markers)", due: nil, job: { done.resume() }))
                return true
            }
            if !posted { done.resume() }
        }
    }

    /// Runs the jobs due now, drops those due later and ends the thread; later posts are ignored.
    public func stop() {
        condition.locked { stopping = true }
    }

    /// The thread's body: run the first job due, else wait for a post or the earliest due
    /// instant; after `stop`, end once no job is due.
    private func serve() {
        condition.lock()
        while true {
            let now = queue.contains { $0.due != nil } ? MonotonicClock.read() : .zero
            if let index = queue.firstIndex(where: { $0.due.map { $0 <= now } ?? true }) {
                let job = queue.remove(at: index).job
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            if stopping { break }
            let next = queue.compactMap(\.due).min()
            _ = condition.wait(until: next.map(MonotonicCondition.timespec))
        }
        queue.removeAll()
        condition.unlock()
    }
}
