import ControlProtocol
import Foundation
import Platform
import RoundClockCore
import Synchronization
import Testing
@testable import RoundClockService

/// The control socket's server in process: what a subscriber that stops reading costs
/// (nothing to the publisher: it is dropped), and where commands go.
@Suite struct ControlServerTests {
    final class Progress: Sendable {
        let read = Atomic(0)
    }

    final class Posted: Sendable {
        let commands = Mutex<[ControlCommand]>([])
    }

    /// A server on a socket in a fresh directory, served on an event loop of its own; its log
    /// and what it posted.
    static func started() throws -> (TempDir, LogLines, Posted, ControlServer, EventLoop) {
        let dir = try TempDir(), logs = LogLines(), posted = Posted()
        let server = try ControlServer(path: "\(dir.path)/control.sock", hub: ControlHub(), logger: logs.logger(), clockVersion: "9.8.7-1",
                                       checkProgram: { $0 == "tabata" ? nil : "unknown program \($0)" },
                                       post: { command in posted.commands.withLock { $0.append(command) } })
        let loop = try EventLoop(name: "test-control")
        try server.start(on: loop)
        return (dir, logs, posted, server, loop)
    }

    static func state(_ n: Int) -> ControlState {
        ControlState(state: "running", phase: "work", round: n, rounds: 1_000_000, program: "boxing", brightness: 15,
                     panels: [.init(role: "time", text: String(repeating: "8", count: 1000))])
    }

    @Test func aSubscriberThatStopsReadingIsDroppedWhileAReadingOneGetsEveryState() async throws {
        let (dir, logs, _, server, loop) = try Self.started()
        defer { dir.remove() }
        let stalled = try LineConnection(path: server.path)
        try stalled.send(#"{"command": "subscribe"}"#)
        let reader = try LineConnection(path: server.path)
        try reader.send(#"{"command": "subscribe"}"#)
        // Both are subscribed once the hub counts them (the server does it, on its loop).
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while server.hub.subscriberCount < 2, clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.hub.subscriberCount == 2)
        // 5,000 states of about 1 KB: far more than the stalled client's socket buffer plus
        // the 256 KiB the server keeps for it. The reading one gets them all, in order.
        // The publisher runs ahead of the reading one by at most 100 states (100 KB, under
        // the limit), never by waiting on the server.
        let hub = server.hub
        let progress = Progress()
        let publishing = Task.detached {
            for n in 1...5000 {
                hub.publish(Self.state(n))
                while n - progress.read.load(ordering: .relaxed) > 100 { try? await Task.sleep(for: .milliseconds(1)) }
            }
        }
        var last = 0
        while last < 5000, let line = try reader.line(timeout: .seconds(60)), let state = ControlState.parse(line) {
            #expect(state.round == last + 1)
            last = state.round
            progress.read.store(last, ordering: .relaxed)
        }
        #expect(last == 5000)
        await publishing.value
        // The stalled one was dropped: what it had queued, then the end of the stream.
        var lines = 0
        while try stalled.line(timeout: .seconds(60)) != nil { lines += 1 }
        #expect(lines < 5000)
        #expect(logs.all.contains { $0.contains("subscriber fell behind") && $0.contains("dropped") }, "\(logs.all)")
        server.stop()
        loop.finish()
        #expect(!FileManager.default.fileExists(atPath: server.path), "socket file removed")
    }

    @Test func commandsArePostedAndAnswered() async throws {
        let (dir, _, posted, server, loop) = try Self.started()
        defer { dir.remove() }
        defer { server.stop(); loop.finish() }
        let client = try LineConnection(path: server.path)
        #expect(try client.request(#"{"command": "hold-stop"}"#) == #"{"ok": true}"#)
        #expect(try client.request(#"{"command": "program", "program": "tabata"}"#) == #"{"ok": true}"#)
        #expect(try client.request(#"{"command": "program", "program": "yoga"}"#) == #"{"ok": false, "error": "unknown program yoga"}"#)
        // A request may arrive in pieces.
        try client.send(Array(#"{"command":"#.utf8), newline: false)
        try client.send(Array(#" "skip"}"#.utf8))
        #expect(try client.line() == #"{"ok": true}"#)
        #expect(posted.commands.withLock { $0 } == [.holdStop, .program("tabata"), .skip])
    }

    /// `adjust` and `back` edit a running or paused round: while the clock is ready (or
    /// finished, or a clock) the client is told why in one line and nothing is posted.
    @Test func liveEditsArePostedOnlyWhileARoundIsUnderway() async throws {
        let (dir, _, posted, server, loop) = try Self.started()
        defer { dir.remove() }
        defer { server.stop(); loop.finish() }
        let client = try LineConnection(path: server.path)
        var ready = Self.state(1)
        ready.state = "ready"
        server.hub.publish(ready)
        #expect(try client.request(#"{"command": "adjust", "seconds": 10}"#)
                == #"{"ok": false, "error": "adjust: only while running or paused (the clock is ready)"}"#)
        #expect(try client.request(#"{"command": "back"}"#)
                == #"{"ok": false, "error": "back: only while running or paused (the clock is ready)"}"#)
        #expect(try client.request(#"{"command": "adjust", "seconds": 0}"#)
                == #"{"ok": false, "error": "\"seconds\" is 0; it must be a whole number of seconds from -600 to 600, not 0"}"#)
        server.hub.publish(Self.state(1))
        #expect(try client.request(#"{"command": "adjust", "seconds": -10}"#) == #"{"ok": true}"#)
        #expect(try client.request(#"{"command": "back"}"#) == #"{"ok": true}"#)
        #expect(posted.commands.withLock { $0 } == [.adjust(seconds: -10), .back])
    }

    /// `version` is answered at once with the protocol's number and the version the server
    /// was given, on any connection, a subscribed one too; nothing goes to the render loop.
    @Test func versionIsAnsweredWithTheProtocolAndTheClockVersion() async throws {
        let (dir, _, posted, server, loop) = try Self.started()
        defer { dir.remove() }
        defer { server.stop(); loop.finish() }
        let client = try LineConnection(path: server.path)
        #expect(try client.request(#"{"command": "version"}"#) == #"{"ok": true, "protocol": 1, "clock": "9.8.7-1"}"#)
        #expect(try client.request(#"{"command": "version", "x": 1}"#) == #"{"ok": false, "error": "unknown member \"x\" for \"version\""}"#)
        server.hub.publish(Self.state(1))
        try client.send(#"{"command": "subscribe"}"#)
        #expect(try client.line().flatMap(ControlState.parse)?.round == 1)
        #expect(try client.request(#"{"command": "version"}"#) == ControlVersion(clock: "9.8.7-1").line)
        #expect(posted.commands.withLock { $0 }.isEmpty)
    }

    /// `echo '{"command": "subscribe"}' | socat ...` and `printf '{"command": "stop"}' | nc -NU ...`:
    /// the client closes its sending side after the request.
    @Test func aClientThatClosesItsSendingSideIsStillAnsweredAndFed() async throws {
        let (dir, _, posted, server, loop) = try Self.started()
        defer { dir.remove() }
        defer { server.stop(); loop.finish() }
        let oneShot = try LineConnection(path: server.path)
        try oneShot.send(Array(#"{"command": "stop"}"#.utf8), newline: false)
        shutdown(oneShot.fd, Int32(SHUT_WR))
        #expect(try oneShot.line() == #"{"ok": true}"#)
        #expect(try oneShot.line() == nil, "closed once answered")
        #expect(posted.commands.withLock { $0 } == [.stop])
        server.hub.publish(Self.state(1))
        let subscriber = try LineConnection(path: server.path)
        try subscriber.send(#"{"command": "subscribe"}"#)
        shutdown(subscriber.fd, Int32(SHUT_WR))
        #expect(try subscriber.line().flatMap(ControlState.parse)?.round == 1)
        server.hub.publish(Self.state(2))  // subscribed: the first line came
        #expect(try subscriber.line().flatMap(ControlState.parse)?.round == 2)
    }

    /// A client that sends 20,000 requests before reading any reply (260 KB of replies) is
    /// not read while 128 KiB of them wait: it is throttled, not dropped, and gets
    /// every reply once it reads; another client is answered meanwhile.
    @Test func aClientThatDoesNotReadItsRepliesIsThrottledNotDropped() async throws {
        let (dir, _, posted, server, loop) = try Self.started()
        defer { dir.remove() }
        defer { server.stop(); loop.finish() }
        let flooding = try LineConnection(path: server.path)
        nonisolated(unsafe) let sender = flooding  // sends on its thread, read below
        let requests = 20_000
        let sending = try PosixThread.start(named: "test-flood") {
            let line = Array(#"{"command": "mode"}"#.utf8) + [0x0A]
            try? sender.send(Array((0..<requests).map { _ in line }.joined()), newline: false)
        }
        // Served meanwhile.
        let other = try LineConnection(path: server.path)
        #expect(try other.request(#"{"command": "start"}"#) == #"{"ok": true}"#)
        var replies = 0
        while replies < requests, try flooding.line() == #"{"ok": true}"# { replies += 1 }
        sending.join()
        #expect(replies == requests)
        #expect(posted.commands.withLock { $0.count } == requests + 1)
    }
}
