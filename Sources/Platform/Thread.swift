#if canImport(Glibc)
import Glibc
#endif

/// A joinable POSIX thread started by `PosixThread.start(named:_:)`: the event loop, the
/// worker, the speaker, and the benchmarks' load threads and timer probe each run on one,
/// outside Swift's pool.
public struct PosixThread: Sendable {
    /// The name given at start (the kernel keeps its first 15 bytes as the thread's `comm`).
    public let name: String
    private let id: pthread_t

    /// Starts a thread named `name` that runs `body` once and ends. The caller joins it
    /// (`join()`), or it stays a zombie thread after it ends.
    public static func start(named name: String, _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) -> PosixThread {
        let box = Unmanaged.passRetained(ThreadBody(name: name, body: body))
        var id = pthread_t()
        let rc = pthread_create(&id, nil, { raw in
            let thread = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            thread.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            throw ThreadStartError(name: name, errno: rc)
        }
        return PosixThread(name: name, id: id)
    }

    /// Lets the thread end on its own, never joined (pthread_detach(3)): the event loop's and
    /// the worker's threads, which live as long as their owner.
    public func detach() {
        pthread_detach(id)
    }

    /// Waits until the thread has ended (pthread_join(3)).
    public func join() {
        pthread_join(id, nil)
    }
}

/// pthread_create(3) failed: the thread's name and the errno it returned (EAGAIN: out of
/// threads or memory; EPERM, EINVAL: attributes).
public struct ThreadStartError: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let errno: Int32
    public init(name: String, errno: Int32) {
        self.name = name
        self.errno = errno
    }
    public var description: String { "thread \"\(name)\": pthread_create failed: \(SystemError.describe(errno))" }
}

/// What the new thread is handed through pthread_create's one pointer.
private final class ThreadBody {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    func run() {
        // What pthread_setname_np(3) does (Glibc does not export it to Swift): write the
        // name to /proc/thread-self/comm, proc(5). The kernel keeps 15 bytes (TASK_COMM_LEN
        // 16 with the NUL), so it is cut here. Only ps, top and gdb show it: a failure is ignored.
        try? writeSysfsAttribute("/proc/thread-self/comm", String(decoding: name.utf8.prefix(15), as: UTF8.self))
        body()
    }
}
