import ControlProtocol
import Logging
import NIOCore
import NIOPosix
import NIOConcurrencyHelpers

/// The gateway's only way to the clock: its control socket (docs/control-protocol.md). One
/// subscription, reconnected by itself with backoff, keeps the latest state and feeds the
/// `LiveHub`; each command is one short connection (connect, one line out, one line back),
/// so a command never waits behind another client's and a dead clock is seen at once.
///
/// Each subscription first asks the clock's protocol version. A clock that speaks another
/// version than `ControlVersion.current` (or does not say) gets one warning line per
/// connection, and the gateway goes on with what it understands: state lines it cannot read
/// are skipped, and the clock refuses, with an error reply, any request it does not know.
public final class ClockLink: Sendable {
    public let path: String
    public let hub: LiveHub
    private let group: any EventLoopGroup
    private let logger: Logger
    private let latest = NIOLockedValueBox<String?>(nil)
    /// The clock's latest line as it came, and the gateway's `group_time` member added to each.
    private let raw = NIOLockedValueBox<String?>(nil)
    private let groupTime = NIOLockedValueBox<String?>(nil)
    /// A request sent on each subscription before `subscribe` (the PIN, `greet(with:)`).
    private let greeting = NIOLockedValueBox<(@Sendable () -> String?)?>(nil)

    /// Sent to the pages while the clock cannot be reached.
    public static let unreachableLine = #"{"gateway": "clock unreachable"}"#
    /// Reconnect delays: 100 ms, doubling, at most 2 s.
    static let firstRetry = Duration.milliseconds(100), lastRetry = Duration.seconds(2)
    /// How long a command waits for the clock's reply.
    public static let replyTimeout = TimeAmount.seconds(3)

    public init(path: String, hub: LiveHub, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger) {
        self.path = path
        self.hub = hub
        self.group = group
        self.logger = logger
    }

    /// The clock's latest state line, `nil` while it is unreachable.
    public var state: String? { latest.withLockedValue { $0 } }

    /// Runs the subscription until the task is cancelled.
    public func run() async {
        var delay = Self.firstRetry
        var wasReachable = true
        hub.publish(Self.unreachableLine)
        while !Task.isCancelled {
            do {
                let channel = try await ControlSocket.connect(path, group: group)
                try await channel.executeThenClose { inbound, outbound in
                    // Answered in order: the version reply, then the state lines.
                    // The greeting's reply is skipped as any reply after the version's.
                    let hello = greeting.withLockedValue { $0 }?().map { $0 + "\n" } ?? ""
                    try await outbound.write(ByteBuffer(string: Self.versionRequest + "\n" + hello + #"{"command": "subscribe"}"# + "\n"))
                    var versionReply = true
                    for try await line in inbound {
                        let text = String(decoding: line.readableBytesView, as: UTF8.self)
                        // State lines only; an `{"ok": …}` reply is not one.
                        guard ControlState.parse(text) != nil else {
                            if versionReply, let warning = Self.protocolWarning(reply: text, path: path) { logger.warning("\(warning)") }
                            versionReply = false
                            continue
                        }
                        versionReply = false
                        if !wasReachable { logger.notice("clock reachable again at \(path)") }
                        wasReachable = true
                        delay = Self.firstRetry
                        raw.withLockedValue { $0 = text }
                        let annotated = annotate(text)
                        latest.withLockedValue { $0 = annotated }
                        hub.publish(annotated)
                    }
                }
                if wasReachable { logger.warning("clock unreachable: \(path): the clock closed the connection") }
            } catch {
                if wasReachable { logger.warning("clock unreachable: \(path): \(error)") }
            }
            wasReachable = false
            raw.withLockedValue { $0 = nil }
            latest.withLockedValue { $0 = nil }
            hub.publish(Self.unreachableLine)
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, Self.lastRetry)
        }
    }

    /// Each subscription from now on sends `line()`'s request (when not `nil`) after asking the
    /// version: the clock hears it again whenever it restarts.
    public func greet(with line: @escaping @Sendable () -> String?) {
        greeting.withLockedValue { $0 = line }
    }

    /// Sets the `group_time` member (a JSON object) that every state line gets from now on,
    /// and sends the latest line again with it; `nil` adds none.
    public func setGroupTime(_ json: String?) {
        groupTime.withLockedValue { $0 = json }
        guard let text = raw.withLockedValue({ $0 }) else { return }
        let annotated = annotate(text)
        latest.withLockedValue { $0 = annotated }
        hub.publish(annotated)
    }

    /// `text` (a JSON object on one line) with `"group_time": …` as its last member.
    func annotate(_ text: String) -> String {
        guard let member = groupTime.withLockedValue({ $0 }), text.hasPrefix("{"), text.hasSuffix("}") else { return text }
        return String(text.dropLast()) + #", "group_time": "# + member + "}"
    }

    /// Asks the clock's protocol version (`ControlVersion`).
    static let versionRequest = ControlRequest.version.line

    /// The warning for the clock's reply to `versionRequest`, or `nil` when the clock speaks
    /// `ControlVersion.current`.
    static func protocolWarning(reply: String, path: String) -> String? {
        let known = "this gateway knows control protocol \(ControlVersion.current) and goes on with what it understands"
        let advice = "install roundclock and roundclock-gateway of one release"
        guard let version = ControlVersion.parse(reply) else {
            return "clock at \(path) does not say its control protocol version (it answered \(reply.prefix(200))); \(known); \(advice)"
        }
        guard version.protocolVersion != ControlVersion.current else { return nil }
        return "clock at \(path) (roundclock \(version.clock)) speaks control protocol \(version.protocolVersion); \(known); \(advice)"
    }

    public enum CommandFailure: Error, Equatable {
        /// The socket is not there or refuses connections.
        case unreachable(String)
        /// Connected, but no reply line within `replyTimeout`.
        case noReply
    }

    /// Sends one request line (no newline in it) and returns the clock's one-line reply.
    public func send(_ line: String) async throws(CommandFailure) -> String {
        let channel: ControlChannel
        do {
            channel = try await ControlSocket.connect(path, group: group)
        } catch {
            throw .unreachable("\(error)")
        }
        let timeout = channel.channel.eventLoop.scheduleTask(in: Self.replyTimeout) { channel.channel.close(promise: nil) }
        defer { timeout.cancel() }
        do {
            let reply: String? = try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(string: line + "\n"))
                var lines = inbound.makeAsyncIterator()
                return try await lines.next().map { String(decoding: $0.readableBytesView, as: UTF8.self) }
            }
            guard let reply else { throw CommandFailure.noReply }
            return reply
        } catch {
            throw .noReply
        }
    }
}

