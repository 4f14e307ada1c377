import CSwiftConcurrencyHooks
#if canImport(Glibc)
import Glibc
#endif

/// Makes one `ProcessJobThread` Swift's global executor, through the concurrency
/// runtime's enqueue hooks (`swift_task_enqueueGlobal_hook` and its delay and deadline
/// variants, the mechanism swift-nio's `unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`
/// uses for the first). For the `run` process: call it first thing, before any task is
/// enqueued, so libdispatch's worker pool (and its 1 Hz monitor timer) never starts.
/// Tests and the other commands keep the runtime's own executor.
public enum ConcurrencyTakeover {
    /// Thin (context-free) swiftcall functions, as the runtime calls the hooks.
    private typealias EnqueueGlobal = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void
    private typealias EnqueueWithDelay = @convention(thin) (UInt64, UnownedJob, @convention(thin) (UInt64, UnownedJob) -> Void) -> Void
    private typealias EnqueueWithDeadline = @convention(thin) (
        Int64, Int64, Int64, Int64, Int32, UnownedJob,
        @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob) -> Void) -> Void

    /// Swift runtime clock ids (swift/Runtime/Concurrency.h `swift_clock_id`): continuous
    /// (CLOCK_BOOTTIME on Linux) and suspending (CLOCK_MONOTONIC).
    private static let continuousClock: Int32 = 1

    /// The thread the hooks enqueue on; nil until `install()` succeeded.
    nonisolated(unsafe) private static var thread: ProcessJobThread?

    /// Installs the hooks once; false (the runtime's executor stays) if the thread cannot
    /// be started or a hook is already set by someone else.
    @discardableResult
    public static func install() -> Bool {
        let global = roundclock_enqueueGlobal_hook(), delay = roundclock_enqueueGlobalWithDelay_hook(),
            deadline = roundclock_enqueueGlobalWithDeadline_hook()
        guard thread == nil, global.pointee == nil, delay.pointee == nil, deadline.pointee == nil else { return false }
        guard let jobs = try? ProcessJobThread() else { return false }
        thread = jobs
        deadline.pointee = pointer(to: enqueueWithDeadline)
        delay.pointee = pointer(to: enqueueWithDelay)
        global.pointee = pointer(to: enqueueGlobal)
        return true
    }

    private static let enqueueGlobal: EnqueueGlobal = { job, _ in
        ConcurrencyTakeover.thread?.enqueue(job)
    }

    private static let enqueueWithDelay: EnqueueWithDelay = { delay, job, _ in
        let deadline = BootTime.read(CLOCK_MONOTONIC) + .nanoseconds(Int64(clamping: delay))
        ConcurrencyTakeover.thread?.enqueue(job, atMonotonic: deadline)
    }

    private static let enqueueWithDeadline: EnqueueWithDeadline = { seconds, nanoseconds, _, _, clock, job, _ in
        var deadline = Duration.seconds(seconds) + .nanoseconds(nanoseconds)
        if clock == ConcurrencyTakeover.continuousClock { deadline -= BootTime.offset() }
        ConcurrencyTakeover.thread?.enqueue(job, atMonotonic: deadline)
    }

    /// The address of a thin function, as the runtime's hook variables hold it.
    private static func pointer<F>(to function: F) -> UnsafeMutableRawPointer? {
        withUnsafeTemporaryAllocation(of: F.self, capacity: 1) { storage in
            storage.baseAddress!.initialize(to: function)
            return storage.baseAddress!.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) { $0.pointee }
        }
    }
}
