#if canImport(Glibc)
import Glibc
#endif
import Platform
import Synchronization

/// `--load`: one busy thread per CPU (ordinary SCHED_OTHER threads, nice 0) spinning on
/// an atomic flag until `finish()`, so every core is contended while the loops run.
public final class LoadGenerator: Sendable {
    private let stopFlag = Atomic<Bool>(false)
    private let state = Mutex((threads: [PosixThread](), tids: [Int32](), spins: UInt64(0)))

    /// Starts `threads` busy threads.
    public init(threads: Int) {
        for _ in 0..<threads {
            // A thread that cannot be started is one busy core fewer, not a failed benchmark.
            if let thread = try? PosixThread.start(named: "busy load", { self.spin() }) {
                state.withLock { $0.threads.append(thread) }
            }
        }
    }

    /// Thread ids of the busy threads (excluded from `--fifo`).
    public var threadIDs: [Int32] { state.withLock { $0.tids } }

    private func spin() {
        let tid = currentThreadID()
        state.withLock { $0.tids.append(tid) }
        var n: UInt64 = 0
        while !stopFlag.load(ordering: .relaxed) { n &+= 1 }
        state.withLock { $0.spins &+= n }
    }

    /// Stops and joins the busy threads.
    public func finish() {
        stopFlag.store(true, ordering: .relaxed)
        let threads = state.withLock { s in defer { s.threads = [] }; return s.threads }
        for thread in threads { thread.join() }
    }
}

/// This thread's kernel id, from the /proc/thread-self link ("PID/task/TID"); Glibc's
/// `gettid` is not visible to Swift here.
func currentThreadID() -> Int32 {
    var buffer = [UInt8](repeating: 0, count: 64)
    let n = buffer.withUnsafeMutableBytes { readlink("/proc/thread-self", $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) }
    guard n > 0 else { return -1 }
    return Int32(String(decoding: buffer[..<n], as: UTF8.self).split(separator: "/").last ?? "") ?? -1
}
