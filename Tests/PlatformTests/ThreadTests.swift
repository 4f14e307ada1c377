import Platform
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `PosixThread`: the one place a pthread is started (button reader, load threads, timer probe).
@Suite struct ThreadTests {
    @Test func runsTheClosureOnANamedThreadAndJoins() throws {
        let seen = Mutex<(ran: Bool, comm: String, onMain: Bool)>((false, "", true))
        let thread = try PosixThread.start(named: "test thread with a long name") {
            let comm = readComm()
            let main = getpid() == currentTID()
            seen.withLock { $0 = (true, comm, main) }
        }
        #expect(thread.name == "test thread with a long name")
        thread.join()
        let result = seen.withLock { $0 }
        #expect(result.ran)
        #expect(!result.onMain)
        // The kernel keeps 15 bytes of the name.
        #expect(result.comm == "test thread wit")
    }

    @Test func theStartErrorNamesTheThreadAndTheErrno() {
        let error = ThreadStartError(name: "button reader", errno: EAGAIN)
        #expect(error.description == "thread \"button reader\": pthread_create failed: Resource temporarily unavailable (errno 11)")
    }
}

/// This thread's `comm` (proc(5) /proc/thread-self/comm), without its newline.
private func readComm() -> String {
    guard let bytes = try? SmallFiles.read("/proc/thread-self/comm", limit: 64) else { return "" }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
}

/// This thread's kernel id, from the /proc/thread-self link ("PID/task/TID").
private func currentTID() -> Int32 {
    var buffer = [CChar](repeating: 0, count: 64)
    let n = readlink("/proc/thread-self", &buffer, buffer.count)
    guard n > 0 else { return -1 }
    let text = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return Int32(text.split(separator: "/").last ?? "") ?? -1
}
