#if canImport(Glibc)
import Glibc
#endif

/// What one thread blocks in until another wakes it or a CLOCK_MONOTONIC deadline passes (a
/// condition variable with `pthread_condattr_setclock`): the worker's and the speaker's
/// threads. The state they wait for lives in a `Mutex` of its owner; a `signal()` after the
/// change is kept until the next `wait`, so a change made between the waiter's look at that
/// state and its `wait` still wakes it.
// @unchecked: `signaled` and `waiting` are guarded by the pthread mutex, which the condition variable needs and `Mutex` cannot lend.
public final class MonotonicWakeup: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var signaled = false
    private var waiting = false

    /// `owner` names the thread in the error (e.g. "worker thread").
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

    /// Wakes the thread blocked in `wait(until:)`, or makes its next `wait` return at once.
    public func signal() {
        pthread_mutex_lock(mutex)
        signaled = true
        let wake = waiting
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
    }

    /// Blocks until `signal()` (one made since the last `wait` counts) or until `deadline` (a
    /// CLOCK_MONOTONIC reading; nil: no deadline). True when the deadline passed unsignaled.
    @discardableResult
    public func wait(until deadline: Duration?) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        waiting = true
        defer { waiting = false }
        let due = deadline.map(Self.timespec)
        while !signaled {
            if var due {
                if pthread_cond_timedwait(condition, mutex, &due) == ETIMEDOUT && !signaled { return true }
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
        signaled = false
        return false
    }

    private static func timespec(_ reading: Duration) -> Glibc.timespec {
        let (seconds, attoseconds) = reading.components
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    }
}
