#if canImport(Glibc)
import Glibc
#endif

/// sd_notify(3) without libsystemd: the documented `$NOTIFY_SOCKET` protocol. Each
/// notification is one datagram of newline-separated `KEY=VALUE` lines sent with
/// sendto(2) (MSG_NOSIGNAL | MSG_DONTWAIT: never blocks the caller; a full queue is
/// EAGAIN) on a fresh `socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC)`. The address is a
/// path (`/run/systemd/notify`) or, with a leading `@`, a Linux abstract socket (the `@`
/// becomes a NUL byte). Without `$NOTIFY_SOCKET` (not under systemd) nothing is sent.
public struct SystemdNotifier: Sendable {
    /// The `$NOTIFY_SOCKET` value, `nil` when not running under a notify-type unit.
    public let socket: String?

    public init(socket: String?) {
        self.socket = socket.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// From `$NOTIFY_SOCKET`.
    public static func fromEnvironment() -> SystemdNotifier {
        SystemdNotifier(socket: getenv("NOTIFY_SOCKET").map { String(cString: $0) })
    }

    public var isEnabled: Bool { socket != nil }

    /// `READY=1`, with an optional `STATUS=`: start-up is complete (after the first
    /// display attempt, see `ReadyNotifier`).
    public func ready(status: String? = nil) throws(SystemError) {
        try send(["READY=1"] + (status.map { ["STATUS=\(Self.oneLine($0))"] } ?? []))
    }

    /// `STATUS=...`: a one-line status shown by `systemctl status`.
    public func status(_ text: String) throws(SystemError) {
        try send(["STATUS=\(Self.oneLine(text))"])
    }

    /// `WATCHDOG=1`: the keep-alive ping for `WatchdogSec=`.
    public func watchdog() throws(SystemError) {
        try send(["WATCHDOG=1"])
    }

    /// `STOPPING=1`: graceful shutdown has begun.
    public func stopping(status: String? = nil) throws(SystemError) {
        try send(["STOPPING=1"] + (status.map { ["STATUS=\(Self.oneLine($0))"] } ?? []))
    }

    /// Sends `assignments` (e.g. `["READY=1", "STATUS=running"]`) as one datagram.
    /// Does nothing without a socket.
    public func send(_ assignments: [String]) throws(SystemError) {
        guard let socket else { return }
        let payload = Array(assignments.joined(separator: "\n").utf8)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socket.utf8)
        let abstract = path.first == UInt8(ascii: "@")
        guard abstract || path.first == UInt8(ascii: "/") else { throw .notify(socket: socket, errno: EAFNOSUPPORT, step: "address (only path and @abstract sockets)") }
        if abstract { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { throw .notify(socket: socket, errno: ENAMETOOLONG, step: "address") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count + (abstract ? 0 : 1))

        let opened = retryingEINTR { Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        guard opened.result >= 0 else { throw .notify(socket: socket, errno: opened.errno, step: "socket") }
        let fd = opened.result
        defer { close(fd) }
        let sent = payload.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    retryingEINTR { sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), sa, length) }
                }
            }
        }
        guard sent.result >= 0 else { throw .notify(socket: socket, errno: sent.errno, step: "sendto") }
    }

    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    /// The keep-alive period systemd expects, from `$WATCHDOG_USEC` (microseconds), when
    /// `$WATCHDOG_PID` is unset or names this process; `nil` when no watchdog is set.
    /// Ping at half of it (sd_watchdog_enabled(3)).
    public static func watchdogTimeout(usec: String?, pid: String?, ownPID: Int32) -> Duration? {
        guard let usec, let micros = Int64(usec), micros > 0 else { return nil }
        if let pid {
            guard let p = Int32(pid), p == ownPID else { return nil }
        }
        return .microseconds(micros)
    }

    /// `watchdogTimeout` from this process's environment and getpid(2).
    public static func watchdogTimeoutFromEnvironment() -> Duration? {
        watchdogTimeout(usec: getenv("WATCHDOG_USEC").map { String(cString: $0) },
                        pid: getenv("WATCHDOG_PID").map { String(cString: $0) }, ownPID: getpid())
    }
}

extension SystemError {
    /// A notification that could not be sent: `sd_notify STEP SOCKET: WHY`.
    public static func notify(socket: String, errno: Int32, step: String) -> SystemError {
        SystemError(operation: "sd_notify \(step)", path: socket, errno: errno)
    }
}
