@testable import ClockLink
import ControlProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// The gateway's check of the clock's protocol version: each subscription asks `version`
/// first; a clock that speaks another protocol, or does not say, gets one warning line, and
/// the gateway goes on with the state lines it understands.
@Suite struct ClockLinkTests {
    static let state = #"{"state": "ready", "phase": "prep", "round": 0, "rounds": 12, "program": "boxing", "brightness": 15, "#
        + #""panels": {"time": " 0:10"}}"#

    /// Log lines, kept.
    final class Captured: Sendable {
        let lines = NIOLockedValueBox<[String]>([])

        var logger: Logger {
            Logger(label: "clock-link-test") { _ in Handler(captured: self) }
        }

        struct Handler: LogHandler {
            let captured: Captured
            var logLevel: Logger.Level = .trace
            var metadata: Logger.Metadata = [:]
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                captured.lines.withLockedValue { $0.append("\(event.level): \(event.message)") }
            }
        }
    }

    /// A stand-in clock listening on a Unix socket at `path` (`serve` answers its clients).
    static func fakeClock(at path: String) async throws -> NIOAsyncChannel<ControlChannel, Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFramer(maximum: ControlLimits.maxLineBytes)))
                    return try ControlChannel(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Answers `version` with `versionReply` and `subscribe` with `state`, each request in
    /// the order it came, until cancelled.
    static func serve(_ server: NIOAsyncChannel<ControlChannel, Never>, versionReply: String) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await connection in connections {
                    group.addTask {
                        try? await connection.executeThenClose { inbound, outbound in
                            for try await line in inbound {
                                switch try ControlRequest.parse(String(buffer: line)) {
                                case .version: try await outbound.write(ByteBuffer(string: versionReply + "\n"))
                                case .subscribe: try await outbound.write(ByteBuffer(string: state + "\n"))
                                default: try await outbound.write(ByteBuffer(string: ControlReply.ok.line + "\n"))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Runs a `ClockLink` against a fake clock that answers `version` with `versionReply`
    /// until the state line reaches the hub; the socket's path and the link's log lines.
    /// With `clockLate`, the clock's socket appears only once the link has logged it unreachable.
    static func linkLog(versionReply: String, clockLate: Bool = false) async throws -> (path: String, log: [String]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clock-link-\(UUID().uuidString).sock").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let captured = Captured()
        let link = ClockLink(path: path, hub: LiveHub(), logger: captured.logger)
        let lines = link.hub.subscribe()
        let running = Task { await link.run() }
        if clockLate {
            let deadline = ContinuousClock.now + .seconds(30)
            while !captured.lines.withLockedValue({ $0.contains { $0.contains("clock unreachable") } }), .now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        let server = try await fakeClock(at: path)
        let serving = Task { try await serve(server, versionReply: versionReply) }
        // The pages get the state line (a stream that starts with the latest line), within 30 s.
        let arrival = Task {
            for await line in lines where line == state { return true }
            return false
        }
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            arrival.cancel()
        }
        #expect(await arrival.value, "the state line reached the pages")
        deadline.cancel()
        #expect(link.state == state)
        running.cancel()
        await running.value
        serving.cancel()
        _ = await serving.result
        return (path, captured.lines.withLockedValue { $0 })
    }

    @Test func aClockOfThisProtocolIsNotWarnedAbout() async throws {
        let (_, log) = try await Self.linkLog(versionReply: ControlVersion(clock: "0.1.0-1").line)
        #expect(!log.contains { $0.contains("control protocol") }, "\(log)")
    }

    @Test func aClockOfAnotherProtocolIsOneWarningAndItsStatesStillArrive() async throws {
        let (path, log) = try await Self.linkLog(versionReply: #"{"ok": true, "protocol": 2, "clock": "9.0.0-1", "new": [1]}"#)
        let warnings = log.filter { $0.contains("control protocol") }
        #expect(warnings == [
            "warning: clock at \(path) (roundclock 9.0.0-1) speaks control protocol 2; "
                + "this gateway knows control protocol 1 and goes on with what it understands; "
                + "install roundclock and roundclock-gateway of one release",
        ], "\(log)")
    }

    @Test func aClockThatDoesNotSayItsProtocolIsOneWarning() async throws {
        let refusal = ControlReply.failed(#"unknown command "version" (known: start, stop)"#).line
        let (path, log) = try await Self.linkLog(versionReply: refusal)
        let warnings = log.filter { $0.contains("control protocol") }
        #expect(warnings == [
            "warning: clock at \(path) does not say its control protocol version (it answered \(refusal)); "
                + "this gateway knows control protocol 1 and goes on with what it understands; "
                + "install roundclock and roundclock-gateway of one release",
        ], "\(log)")
    }

    @Test func theFirstConnectionIsNotCalledReachableAgain() async throws {
        let (_, log) = try await Self.linkLog(versionReply: ControlVersion(clock: "0.1.0-1").line)
        #expect(!log.contains { $0.contains("reachable again") }, "\(log)")
    }

    @Test func aClockBackAfterBeingUnreachableIsReachableAgain() async throws {
        let (path, log) = try await Self.linkLog(versionReply: ControlVersion(clock: "0.1.0-1").line, clockLate: true)
        #expect(log.first?.hasPrefix("warning: clock unreachable: \(path)") == true, "\(log)")
        #expect(log.filter { $0.contains("reachable again") } == ["notice: clock reachable again at \(path)"], "\(log)")
    }

    @Test func theWarningIsDecidedByTheReplyAlone() {
        #expect(ClockLink.versionRequest == #"{"command": "version"}"#)
        #expect(ClockLink.protocolWarning(reply: #"{"ok": true, "protocol": 1, "clock": "x"}"#, path: "/s") == nil)
        #expect(ClockLink.protocolWarning(reply: #"{"ok": true, "protocol": 1, "clock": "x", "later": true}"#, path: "/s") == nil)
        for reply in [#"{"ok": true, "protocol": 2, "clock": "x"}"#, #"{"ok": true}"#, #"{"ok": true, "protocol": "1", "clock": "x"}"#,
                      #"{"ok": true, "protocol": 0, "clock": "x"}"#, "not json"] {
            #expect(ClockLink.protocolWarning(reply: reply, path: "/s")?.hasPrefix("clock at /s ") == true, "\(reply)")
        }
    }
}
