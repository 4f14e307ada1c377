import Platform
import Synchronization

/// One thread for work that may block on a disk (the state file's writes and fsyncs), so the
/// render loop never waits for one. A job is posted under a key and replaces the job of that
/// key not yet started: the queue holds at most one job per key however fast they come, and
/// the newest is the one that runs. Jobs run one at a time in the order their keys were
/// queued; a job may be due later (`after`, a retry), on CLOCK_MONOTONIC. The thread blocks in
/// one wait while nothing is due: it costs no wake-up of its own.
public final class BlockingWorker: Sendable {
    /// The thread's name, as `top -H` and /proc/PID/task/TID/comm show it.
    public static let name = "roundclock-work"

    private struct Entry {
        var key: String
        /// CLOCK_MONOTONIC reading; `nil`: now.
        var due: Duration?
        var job: @Sendable () -> Void
    }

    private struct Queue {
        var entries: [Entry] = []
        var stopping = false
        var markers: UInt64 = 0
    }

    private let queue = Mutex(Queue())
    private let wakeup: MonotonicWakeup

    /// Starts the thread, named `name` (the voice renders on one of its own,
    /// `roundclock-voice`).
    public init(name: String = BlockingWorker.name) throws(SystemError) {
        wakeup = try MonotonicWakeup(owner: "worker thread")
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
        let posted = queue.withLock { queue -> Bool in
            guard !queue.stopping else { return false }
            if let index = queue.entries.firstIndex(where: { $0.key == key }) {
                let earlier = queue.entries[index].due.flatMap { old in due.map { min(old, $0) } }
                queue.entries[index] = Entry(key: key, due: earlier, job: job)
            } else {
                queue.entries.append(Entry(key: key, due: due, job: job))
            }
            return true
        }
        if posted { wakeup.signal() }
    }

    /// Returns once every job due now that was queued before the call has run (a job due
    /// later is not waited for).
    public func drain() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let posted = queue.withLock { queue -> Bool in
                guard !queue.stopping else { return false }
                queue.markers += 1
                queue.entries.append(Entry(key: "\u{0}drain \(queue.markers)", due: nil, job: { done.resume() }))
                return true
            }
            if posted { wakeup.signal() }
            if !posted { done.resume() }
        }
    }

    /// Runs the jobs due now, drops those due later and ends the thread; later posts are ignored.
    public func stop() {
        queue.withLock { $0.stopping = true }
        wakeup.signal()
    }

    private enum Step {
        case run(@Sendable () -> Void)
        /// Until a post or this CLOCK_MONOTONIC reading (nil: a post).
        case wait(Duration?)
        case end
    }

    /// The thread's body: run the first job due, else wait for a post or the earliest due
    /// instant; after `stop`, end once no job is due.
    private func serve() {
        while true {
            let step = queue.withLock { queue -> Step in
                let now = queue.entries.contains { $0.due != nil } ? MonotonicClock.read() : .zero
                if let index = queue.entries.firstIndex(where: { $0.due.map { $0 <= now } ?? true }) {
                    return .run(queue.entries.remove(at: index).job)
                }
                if queue.stopping {
                    queue.entries.removeAll()
                    return .end
                }
                return .wait(queue.entries.compactMap(\.due).min())
            }
            switch step {
            case .run(let job): job()
            case .wait(let deadline): wakeup.wait(until: deadline)
            case .end: return
            }
        }
    }
}
