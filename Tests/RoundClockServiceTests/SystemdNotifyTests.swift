#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Platform
import Testing
@testable import RoundClockService

/// A real AF_UNIX SOCK_DGRAM socket bound where `$NOTIFY_SOCKET` would point.
final class DatagramSocket {
    let fd: Int32
    let name: String
    let path: String?

    /// `abstract`: bind in the abstract namespace; `name` is then `@...`.
    init(abstract: Bool) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        let unique = "roundclock-test-\(UUID().uuidString.prefix(8))"
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes: [UInt8]
        if abstract {
            name = "@" + unique
            path = nil
            bytes = [0] + Array(unique.utf8)
        } else {
            let p = FileManager.default.temporaryDirectory.appendingPathComponent(unique + ".sock").path
            name = p
            path = p
            bytes = Array(p.utf8) + [0]
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count - (abstract ? 0 : 1))
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram, or nil after the 2 s timeout.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n >= 0 else { return nil }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }

    /// The next datagram, polling without blocking a thread of the cooperative pool.
    func receiveAsync(timeout: Duration = .seconds(60)) async -> String? {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while clock.now < end {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n >= 0 { return String(decoding: buffer[0..<n], as: UTF8.self) }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// Whether a datagram is waiting right now.
    func hasPending() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1)
        return recv(fd, &buffer, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) >= 0
    }

    deinit {
        close(fd)
        if let path { unlink(path) }
    }
}

@Suite struct SystemdNotifyTests {
    @Test(arguments: [false, true])
    func sendsEachMessageAsOneDatagram(abstract: Bool) throws {
        let server = try DatagramSocket(abstract: abstract)
        let notifier = SystemdNotifier(socket: server.name)
        #expect(notifier.isEnabled)
        try notifier.ready(status: "boxing ready\nsecond line")
        #expect(server.receive() == "READY=1\nSTATUS=boxing ready second line")
        try notifier.status("round 3 of 12")
        #expect(server.receive() == "STATUS=round 3 of 12")
        try notifier.watchdog()
        #expect(server.receive() == "WATCHDOG=1")
        try notifier.stopping()
        #expect(server.receive() == "STOPPING=1")
        #expect(!server.hasPending())
    }

    @Test func withoutSocketNothingHappens() throws {
        let notifier = SystemdNotifier(socket: nil)
        #expect(!notifier.isEnabled && !SystemdNotifier(socket: "").isEnabled)
        try notifier.ready()
    }

    @Test func errorsNameSocketAndErrno() {
        #expect(throws: SystemError.notify(socket: "/nonexistent/notify", errno: ENOENT, step: "sendto")) {
            try SystemdNotifier(socket: "/nonexistent/notify").watchdog()
        }
        #expect(throws: SystemError.notify(socket: "vsock:2:1234", errno: EAFNOSUPPORT, step: "address (only path and @abstract sockets)")) {
            try SystemdNotifier(socket: "vsock:2:1234").watchdog()
        }
        #expect(throws: SystemError.self) { try SystemdNotifier(socket: "/" + String(repeating: "x", count: 200)).watchdog() }
        #expect(SystemError.notify(socket: "/x", errno: ENOENT, step: "sendto").description == "sd_notify sendto /x: No such file or directory (errno 2)")
    }

    @Test func watchdogTimeoutParsing() {
        #expect(SystemdNotifier.watchdogTimeout(usec: "10000000", pid: nil, ownPID: 42) == .seconds(10))
        #expect(SystemdNotifier.watchdogTimeout(usec: "10000000", pid: "42", ownPID: 42) == .seconds(10))
        #expect(SystemdNotifier.watchdogTimeout(usec: "10000000", pid: "41", ownPID: 42) == nil, "for another process")
        #expect(SystemdNotifier.watchdogTimeout(usec: nil, pid: nil, ownPID: 42) == nil)
        #expect(SystemdNotifier.watchdogTimeout(usec: "0", pid: nil, ownPID: 42) == nil)
        #expect(SystemdNotifier.watchdogTimeout(usec: "ten", pid: nil, ownPID: 42) == nil)
        #expect(SystemdNotifier.watchdogTimeout(usec: "10000000", pid: "x", ownPID: 42) == nil)
    }
}
