import Foundation
import Platform

/// A test's connection to `roundclock run --control PATH` (Platform's `LineConnection`),
/// connected once the clock listens; every read waits with a generous deadline (never a
/// fixed sleep).
final class ControlConnection {
    let connection: LineConnection

    /// Connects, retrying until the clock listens (or `deadline`).
    init(path: String, deadline: Duration = .seconds(60)) async throws {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        while true {
            do {
                connection = try LineConnection(path: path)
                return
            } catch {
                guard clock.now < end else { throw error }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    func send(_ bytes: [UInt8]) throws { try connection.send(bytes) }
    func send(_ line: String) throws { try connection.send(line) }
    func line(deadline: Duration = .seconds(30)) throws -> String? { try connection.line(timeout: deadline) }
    func request(_ line: String) throws -> String { try connection.request(line) ?? "<closed>" }

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
