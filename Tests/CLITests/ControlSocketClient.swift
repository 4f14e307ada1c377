import Foundation
import Platform

/// A test's connection to `roundclock run --control PATH`: lines out, lines in, each read
/// waiting with a generous deadline (never a fixed sleep).
final class ControlConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects, retrying until the clock listens (or `deadline`).
    init(path: String, deadline: Duration = .seconds(60)) async throws {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        while true {
            do {
                fd = try UnixSocket.connect(path: path)
                return
            } catch {
                guard clock.now < end else { throw error }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    deinit { close(fd) }

    /// Sends `bytes` and a newline (all of them: a blocking socket).
    func send(_ bytes: [UInt8], newline: Bool = true) throws {
        let all = bytes + (newline ? [0x0A] : [])
        var sent = 0
        while sent < all.count {
            let n = try UnixSocket.send(fd, all[sent...], subject: "test client")
            guard n > 0 else { throw POSIXError(.EAGAIN) }
            sent += n
        }
    }

    func send(_ line: String) throws { try send(Array(line.utf8)) }

    /// The next line (without its newline), or `nil` at the end of the stream; throws
    /// `ETIMEDOUT` after `deadline`.
    func line(deadline: Duration = .seconds(30)) throws -> String? {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let left = clock.now.duration(to: end)
            guard left > .zero else { throw POSIXError(.ETIMEDOUT) }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            let ms = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard try pollDescriptors(&fds, timeout: ms, subject: "test client") > 0 else { continue }
            guard let count = try UnixSocket.receive(fd, into: &chunk, subject: "test client"), count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
    }

    /// Sends `line` and returns the reply line.
    func request(_ line: String) throws -> String {
        try send(line)
        return try self.line() ?? "<closed>"
    }

    /// Reads state lines until one satisfies `matches`; returns it.
    func state(where matches: ([String: Any]) -> Bool, deadline: Duration = .seconds(30)) throws -> [String: Any] {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        while clock.now < end {
            guard let line = try line(deadline: clock.now.duration(to: end)) else { break }
            if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["state"] != nil, matches(object) {
                return object
            }
        }
        throw POSIXError(.ETIMEDOUT)
    }
}

/// `roundclock run --simulate --control PATH --frames FRAMES` running in the background.
final class ControlledClock {
    let socket: String
    let frames: String
    let stderr: String
    let pid: pid_t

    init(_ extra: [String] = []) throws {
        socket = temporaryFile("control.sock")
        frames = temporaryFile("control.jsonl")
        stderr = temporaryFile("control.err")
        pid = try SignalTests.spawn(["run", "--simulate", "--control", socket, "--frames", frames] + extra, blocking: [], stderr: stderr)
    }

    func connect() async throws -> ControlConnection { try await ControlConnection(path: socket) }

    /// SIGTERM, then the exit status ("exit 0" when graceful).
    func stop() async throws -> String {
        kill(pid, SIGTERM)
        return SignalTests.describe(try await SignalTests.wait(pid))
    }

    var log: String { (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "" }

    func removeFiles() {
        for path in [socket, frames, stderr] { try? FileManager.default.removeItem(atPath: path) }
    }
}
