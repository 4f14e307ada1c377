import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import MosquittoClient
import Synchronization
import Testing

/// `MQTTClient` against a real Mosquitto (Debian `mosquitto`, `-p PORT`: local clients,
/// anonymous): a component's filter and handler, publishing, and the connect handler on the
/// first connect and after the broker was killed and started again, or after a broker that
/// broke the protocol gave way to a real one.
@Suite(.serialized) struct MQTTClientTests {
    static let mosquitto = "/usr/sbin/mosquitto"

    /// A port the kernel just handed out on 127.0.0.1 (bound, read back, closed).
    /// A port free now and never handed out before in this process: tests run side by side,
    /// and the kernel may give a port just closed to the next `bind` to port 0.
    static func freePort() throws -> Int {
        while true {
            let (fd, port) = try loopbackSocket(port: 0)
            close(fd)
            if handedOut.withLock({ $0.insert(port).inserted }) { return port }
        }
    }
    static let handedOut = Mutex<Set<Int>>([])

    /// A TCP socket bound to 127.0.0.1:`port` (SO_REUSEADDR; 0: any free port), and the port
    /// it got.
    static func loopbackSocket(port: Int) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        if !bound { close(fd) }
        try #require(bound, "bind 127.0.0.1:\(port)")
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    static func broker(port: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: mosquitto)
        process.arguments = ["-p", "\(port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// SIGKILL: a broker that crashed. (SIGTERM may be blocked: a test process's signal mask
    /// is inherited, and the test runner's blocks it.)
    static func kill(_ broker: Process) {
        guard broker.isRunning else { return }
        _ = Glibc.kill(broker.processIdentifier, SIGKILL)
        broker.waitUntilExit()
    }

    /// Waits for `condition` with a generous deadline (a loaded machine), never a fixed sleep.
    static func waitFor(_ what: String, within limit: Duration = .seconds(60), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            try #require(ContinuousClock.now < deadline, "timed out waiting for \(what)")
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: mosquitto)))
    func handlersHearTheirFilterAndEveryConnect() async throws {
        let port = try Self.freePort()
        var broker = try Self.broker(port: port)
        defer { Self.kill(broker) }
        let client = try MQTTClient(MQTTConnection(host: "127.0.0.1", port: port, clientID: "rc-swift-test-\(getpid())", keepalive: 5),
                                    logger: Logger(label: "test"))
        let received = Mutex<[MQTTMessage]>([])
        let connects = Mutex(0)
        try client.subscribe("rc-test/+/hello") { message in received.withLock { $0.append(message) } }
        try client.subscribe("rc-other/#") { _ in Issue.record("a message outside the filter") }
        client.onConnect {
            let count = connects.withLock { n in
                n += 1
                return n
            }
            client.publish(MQTTMessage(topic: "rc-test/\(count)/hello", text: "connect \(count)", retain: false))
        }
        #expect(!client.publish(MQTTMessage(topic: "rc-test/0/hello", text: "too early")), "dropped while not connected")
        try client.start()
        try await Self.waitFor("the first connect's message") { received.withLock { $0.count } == 1 }
        #expect(received.withLock { $0 } == [MQTTMessage(topic: "rc-test/1/hello", text: "connect 1", retain: false)])
        #expect(client.isConnected)

        Self.kill(broker)
        try await Self.waitFor("the client to see the broker gone") { !client.isConnected }
        broker = try Self.broker(port: port)
        try await Self.waitFor("the reconnect's message, on the resubscribed filter") { received.withLock { $0.count } == 2 }
        #expect(received.withLock { $0.last } == MQTTMessage(topic: "rc-test/2/hello", text: "connect 2", retain: false))
        #expect(connects.withLock { $0 } == 2)
        #expect(await client.publishAcknowledged(MQTTMessage(topic: "rc-test/3/hello", text: "acked"), timeout: .seconds(30)))
        await client.stop()
        #expect(!client.isConnected)
    }

    /// A broker that breaks the protocol: it accepts the connection (CONNACK 0), then sends a
    /// packet of the reserved type 0 (MQTT 3.1.1 section 2.2.1), which libmosquitto answers
    /// with MOSQ_ERR_PROTOCOL, one of the errors after which its own network thread
    /// (`mosquitto_loop_start`) stops for good. Then it goes away and a real Mosquitto comes up
    /// on the same port: the client must find it by itself and work again.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: mosquitto)))
    func aBrokerBreakingTheProtocolDoesNotStopReconnecting() async throws {
        let port = try Self.freePort()
        let rogue = try RogueBroker(port: port, acceptsConnect: true)
        defer { rogue.close() }
        let client = try MQTTClient(MQTTConnection(host: "127.0.0.1", port: port, clientID: "rc-swift-rogue-\(getpid())", keepalive: 5),
                                    logger: Logger(label: "test"))
        let connects = Mutex(0)
        let received = Mutex<[MQTTMessage]>([])
        try client.subscribe("rc-rogue/#") { message in received.withLock { $0.append(message) } }
        client.onConnect { connects.withLock { $0 += 1 } }
        try client.start()
        try await Self.waitFor("the rogue broker's CONNACK") { connects.withLock { $0 } == 1 }
        rogue.breakProtocol()
        try await Self.waitFor("the client to drop the rogue broker") { !client.isConnected }
        rogue.close()
        let broker = try Self.broker(port: port)
        defer { Self.kill(broker) }
        try await Self.waitFor("a connection to the real broker") {
            precondition(broker.isRunning, "mosquitto exited: port \(port) taken?")
            return connects.withLock { $0 } == 2
        }
        #expect(await client.publishAcknowledged(MQTTMessage(topic: "rc-rogue/after", text: "back", retain: false), timeout: .seconds(30)))
        try await Self.waitFor("the message, on the resubscribed filter") { !received.withLock { $0.isEmpty } }
        #expect(received.withLock { $0 } == [MQTTMessage(topic: "rc-rogue/after", text: "back", retain: false)])
        await client.stop()
        #expect(!client.isConnected)
    }

    /// A started client whose CONNECT a rogue broker has received and will never answer.
    /// A client connecting to a broker that takes the CONNECT and never answers, and the
    /// instant just before the client started (its attempt began after that).
    static func connectingToSilentBroker(keepalive: Int) async throws -> (RogueBroker, MQTTClient, started: ContinuousClock.Instant) {
        let port = try freePort()
        let rogue = try RogueBroker(port: port, acceptsConnect: false)
        let client = try MQTTClient(MQTTConnection(host: "127.0.0.1", port: port, clientID: "rc-swift-silent-\(getpid())", keepalive: keepalive),
                                    logger: Logger(label: "test"))
        let started = ContinuousClock.now
        try client.start()
        try await waitFor("the CONNECT") { rogue.seen.withLock { $0.bytes.first } == 0x10 }
        return (rogue, client, started)
    }

    /// `stop` while the broker has the CONNECT and has not answered: the client still sends
    /// DISCONNECT (so the broker would not publish the will), closes the connection, and
    /// `stop` returns; no connect handler runs.
    @Test func stopDuringAConnectSendsDisconnect() async throws {
        let (rogue, client, _) = try await Self.connectingToSilentBroker(keepalive: 5)
        defer { rogue.close() }
        let connects = Mutex(0)
        client.onConnect { connects.withLock { $0 += 1 } }
        await client.stop()
        try await Self.waitFor("the client to close the connection") { rogue.seen.withLock { $0.closedByClient } }
        let bytes = rogue.seen.withLock { $0.bytes }
        #expect(bytes.suffix(2) == [0xE0, 0x00], "DISCONNECT last; got \(bytes.count) bytes ending \(bytes.suffix(4))")
        #expect(connects.withLock { $0 } == 0)
        #expect(!client.isConnected)
    }

    /// A broker that takes the CONNECT and never answers: the client gives the attempt up
    /// after `MQTTClient.connectTimeout` (20 s), not only when keepalive (60 s here) runs out,
    /// and tries again.
    @Test func aConnectNeverAnsweredIsGivenUp() async throws {
        let (rogue, client, sent) = try await Self.connectingToSilentBroker(keepalive: 60)
        defer { rogue.close() }
        try await Self.waitFor("the client to give the connection up", within: .seconds(50)) { rogue.seen.withLock { $0.closedByClient } }
        let waited = ContinuousClock.now - sent
        #expect(waited >= .seconds(19), "gave up after \(waited), before the connect timeout")
        #expect(!client.isConnected)
        await client.stop()
    }
}

/// Just enough of a broker on 127.0.0.1:`port` to take one MQTT client: it records every
/// byte the client sends, answers the first read (the CONNECT: a few dozen bytes, one segment
/// on loopback) with CONNACK "accepted" if told to, and breaks the protocol on command.
/// Blocking sockets on a thread of its own, outside Swift's cooperative pool.
final class RogueBroker: Sendable {
    struct Seen {
        var connection: Int32 = -1
        var bytes: [UInt8] = []
        var closedByClient = false
    }
    private let listener: Int32
    private let closed = Mutex(false)
    let seen = Mutex(Seen())

    init(port: Int, acceptsConnect: Bool) throws {
        let listener = try MQTTClientTests.loopbackSocket(port: port).fd
        self.listener = listener
        try #require(listen(listener, 1) == 0, "rogue broker: listen on 127.0.0.1:\(port)")
        Thread.detachNewThread { [self] in
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }  // closed before a client came
            seen.withLock { $0.connection = fd }
            var buffer = [UInt8](repeating: 0, count: 512)
            var first = true
            while true {
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { break }
                seen.withLock { $0.bytes += buffer[0..<count] }
                if first && acceptsConnect {
                    let connack: [UInt8] = [0x20, 0x02, 0x00, 0x00]
                    _ = write(fd, connack, connack.count)
                }
                first = false
            }
            seen.withLock { $0.closedByClient = true }
        }
    }

    /// Sends a fixed header of packet type 0, reserved ("forbidden") in MQTT 3.1.1.
    func breakProtocol() {
        let reserved: [UInt8] = [0x00, 0x00]
        _ = write(seen.withLock { $0.connection }, reserved, reserved.count)
    }

    /// Stops listening (shutdown(2) wakes a pending accept) and drops the client, if any.
    /// Once only: a second close(2) of the listener's number would close whatever socket of
    /// another test has that number by then.
    func close() {
        let wasClosed = closed.withLock { wasClosed in
            defer { wasClosed = true }
            return wasClosed
        }
        guard !wasClosed else { return }
        _ = shutdown(listener, Int32(SHUT_RDWR))
        _ = Glibc.close(listener)
        _ = shutdown(seen.withLock { $0.connection }, Int32(SHUT_RDWR))
    }
}
