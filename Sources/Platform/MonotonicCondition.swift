#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex with a condition variable that waits on CLOCK_MONOTONIC deadlines
/// (`pthread_condattr_setclock`): what the worker thread and the speaker's thread block in.
public final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// A thread is blocked in `wait(until:)` (guarded by the mutex).
    private var waiting = false

    /// `owner` names the thread in the error (e.g. "render loop thread").
    public init(owner: String) throws(SystemError) {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        let clockRC = pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        guard clockRC == 0 else {
            throw SystemError(device: owner, operation: "pthread_condattr_setclock(CLOCK_MONOTONIC)", errno: clockRC)
        }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the mutex, then wakes the thread if it is blocked in
    /// `wait(until:)`: whatever `body` changed (a job, a wait, an interrupt) is for it to see.
    public func locked<T>(_ body: () -> T) -> T {
        lock()
        let result = body()
        let wake = waiting
        unlock()
        if wake { pthread_cond_signal(condition) }
        return result
    }

    /// With the mutex held: blocks until `locked` changed something or until `deadline` (a
    /// CLOCK_MONOTONIC reading; nil: no deadline). True when the deadline passed.
    public func wait(until deadline: timespec?) -> Bool {
        waiting = true
        defer { waiting = false }
        guard var due = deadline else {
            pthread_cond_wait(condition, mutex)
            return false
        }
        return pthread_cond_timedwait(condition, mutex, &due) == ETIMEDOUT
    }

    /// A CLOCK_MONOTONIC reading as the `timespec` that `wait(until:)` takes.
    public static func timespec(_ reading: Duration) -> Glibc.timespec {
        let (seconds, attoseconds) = reading.components
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    }
}
