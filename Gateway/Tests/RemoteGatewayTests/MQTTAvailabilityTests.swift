@testable import ClockLink
@testable import ClockMQTT
import ControlProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
@testable import MosquittoClient
import NIOCore
import NIOPosix
import RoundClockCore
import Synchronization
import Testing

/// What Home Assistant sees on `<prefix>/status` through a real Mosquitto, from a subscriber
/// connected before the gateway starts: the gateway's `ClockMQTT` with its real `ClockLink`
/// to a stand-in clock. A start says `online` once, after the discovery configs and the
/// state, and never `offline` on the way; a clean stop says `offline` once; a broker
/// restarted says nothing more than `online` again; a connection the broker sees drop gets
/// the will's `offline` and nothing from the gateway itself.
@Suite(.serialized) struct MQTTAvailabilityTests {
    static let topics = ClockTopics(prefix: "rc-avail/ring1")
    static let discovery = HomeAssistantDiscovery(topics: topics, discoveryPrefix: "homeassistant", programs: Presets.cycle.map(\.name),
                                                  version: "0.1.0")
    static let marker = "rc-avail-marker/done"

    /// A broker, a subscriber that records every message on the clock's topics, the
    /// discovery configs and `marker`, and a gateway's bridge and link (not started).
    final class Rig: Sendable {
        let port: Int
        let broker: Mutex<Process>
        let listener: MQTTClient
        let received = Received()
        let gateway: MQTTClient
        let link: ClockLink
        let bridge: ClockMQTT
        let socketPath: String
        /// The stand-in clock, the link's run and the bridge's run.
        private let clock = Mutex<Task<Void, Never>?>(nil)
        private let linking = Mutex<Task<Void, Never>?>(nil)
        private let bridging = Mutex<Task<Void, Never>?>(nil)

        /// `gatewayPort`: where the gateway connects (a relay in front of the broker), the
        /// broker's own port by default.
        init(gatewayPort: ((Int) throws -> Int)? = nil) async throws {
            port = try MQTTClientTests.freePort()
            broker = Mutex(try MQTTClientTests.broker(port: port))
            let logger = Logger(label: "test")
            listener = try MQTTClient(MQTTConnection(host: "127.0.0.1", port: port, clientID: "rc-avail-sub-\(getpid())", keepalive: 5),
                                      logger: logger)
            socketPath = FileManager.default.temporaryDirectory.appendingPathComponent("rc-avail-\(UUID().uuidString).sock").path
            gateway = try MQTTClient(MQTTConnection(host: "127.0.0.1", port: try gatewayPort?(port) ?? port, clientID: "rc-avail-gw-\(getpid())",
                                                    keepalive: 5, will: ClockMQTT.will(MQTTAvailabilityTests.topics)),
                                     logger: logger)
            link = ClockLink(path: socketPath, hub: LiveHub(), logger: logger)
            bridge = try ClockMQTT(client: gateway, topics: MQTTAvailabilityTests.topics, discovery: MQTTAvailabilityTests.discovery,
                                   link: link, logger: logger)
            for filter in [MQTTAvailabilityTests.topics.prefix + "/#", "homeassistant/#", MQTTAvailabilityTests.marker] {
                try listener.subscribe(filter) { [received] message in received.withLock { $0.append(message) } }
            }
            try listener.start()
            try await MQTTClientTests.waitFor("the listener connected") { listener.isConnected }
        }

        /// The stand-in clock (`ClockLinkTests.serve`: its state is boxing, ready) at `socketPath`.
        func startClock() async throws {
            let server = try await ClockLinkTests.fakeClock(at: socketPath)
            let serving = Task { _ = try? await ClockLinkTests.serve(server, versionReply: ControlVersion(clock: "0.1.0-1").line) }
            clock.withLock { $0 = serving }
        }

        /// Closes the stand-in clock and its connections.
        func stopClock() async {
            let serving = clock.withLock { $0 }
            serving?.cancel()
            await serving?.value
        }

        func startLink() {
            linking.withLock { $0 = Task { await self.link.run() } }
        }

        /// The gateway's MQTT service: the bridge runs until `stopGateway`; the client
        /// connects too unless `connect` is false.
        func startBridge(connect: Bool = true) throws {
            if connect { try gateway.start() }
            bridging.withLock { $0 = Task { await self.bridge.run() } }
        }

        /// As the service at a graceful shutdown: the bridge's run ends, then its `stop`; then
        /// waits for what it published.
        func stopGateway() async throws {
            let running = bridging.withLock { $0 }
            running?.cancel()
            await running?.value
            await bridge.stop()
            try await settle()
        }

        func close() async {
            let running = linking.withLock { $0 }
            running?.cancel()
            await running?.value
            await stopClock()
            await listener.stop()
            MQTTClientTests.kill(broker.withLock { $0 })
            try? FileManager.default.removeItem(atPath: socketPath)
        }

        var statuses: [String] {
            received.withLock { $0.filter { $0.topic == MQTTAvailabilityTests.topics.status }.map { String(decoding: $0.payload, as: UTF8.self) } }
        }

        /// Waits until the broker has delivered everything published before this call: the
        /// listener's own marker comes back.
        func settle() async throws {
            let count = received.withLock { $0.filter { $0.topic == MQTTAvailabilityTests.marker }.count }
            #expect(await listener.publishAcknowledged(MQTTMessage(topic: MQTTAvailabilityTests.marker, text: "\(count)", retain: false),
                                                       timeout: .seconds(60)))
            try await MQTTClientTests.waitFor("the marker") {
                received.withLock { $0.filter { $0.topic == MQTTAvailabilityTests.marker }.count } > count
            }
        }

        /// The topics, in the order they came, of what arrived up to the first `online` at
        /// or after `from`: the connect's discovery configs and state must all be there.
        func beforeOnline(from: Int = 0) -> [String] {
            let all = received.withLock { Array($0[from...]) }
            let online = all.firstIndex { $0.topic == MQTTAvailabilityTests.topics.status && $0.payload == Array("online".utf8) } ?? all.endIndex
            return all[..<online].map(\.topic)
        }

        /// Waits until the gateway's libmosquitto has every PUBACK: a connection dropped
        /// before that re-sends the unacknowledged messages on the next one (QoS 1), ahead of
        /// the connect's republish, which would make the order the test checks a race.
        func gatewayAcknowledged() async throws {
            try await MQTTClientTests.waitFor("the gateway's PUBACKs") { gateway.state.withLock { $0.unacked.isEmpty } }
        }

        func restartBroker() throws {
            try broker.withLock { broker in
                MQTTClientTests.kill(broker)
                broker = try MQTTClientTests.broker(port: port)
            }
        }
    }

    /// What the listener got, in order.
    final class Received: Sendable {
        private let messages = Mutex<[MQTTMessage]>([])
        func withLock<T>(_ body: (inout [MQTTMessage]) -> T) -> T { messages.withLock { body(&$0) } }
    }

    /// Every discovery config topic and the state topic came before `online`.
    static func expectDiscoveryAndStateFirst(_ topics: [String]) {
        let configs = discovery.messages().map(\.topic)
        #expect(Set(configs).isSubset(of: Set(topics)), "all \(configs.count) discovery configs before online: \(topics)")
        #expect(topics.contains(Self.topics.state), "the state before online: \(topics)")
    }

    /// Subscribed before the gateway starts: `online` once, after the discovery configs and the
    /// state; no `offline` until the clean stop, which gives exactly one. `brokerFirst`: the
    /// gateway is connected to the broker before the clock's first line reaches it; else the
    /// clock's line comes first.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: MQTTClientTests.mosquitto)), arguments: [true, false])
    func aStartSaysOnlineOnceAndAStopOfflineOnce(brokerFirst: Bool) async throws {
        let rig = try await Rig()
        if brokerFirst {
            try rig.startBridge()
            try await MQTTClientTests.waitFor("the discovery configs") { rig.received.withLock { $0.count } >= Self.discovery.messages().count }
            try await rig.startClock()
            rig.startLink()
        } else {
            try await rig.startClock()
            rig.startLink()
            try rig.startBridge(connect: false)
            // The bridge has tried to publish the clock's report (dropped: not connected yet).
            try await MQTTClientTests.waitFor("the report before the connect") { rig.gateway.state.withLock { $0.dropped } > 0 }
            try rig.gateway.start()
        }
        try await MQTTClientTests.waitFor("online") { rig.statuses.contains("online") }
        try await rig.settle()
        Self.expectDiscoveryAndStateFirst(rig.beforeOnline())
        #expect(rig.statuses == ["online"], "started: \(rig.statuses)")
        try await rig.stopGateway()
        #expect(rig.statuses == ["online", "offline"], "stopped cleanly: \(rig.statuses)")
        await rig.close()
    }

    /// The broker killed and started again empty (it never saw the gateway go, and publishes
    /// no will): the gateway republishes discovery, state and `online`, and never `offline`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: MQTTClientTests.mosquitto)))
    func aBrokerRestartSaysOnlineAgainAndNeverOffline() async throws {
        let rig = try await Rig()
        try await rig.startClock()
        rig.startLink()
        try rig.startBridge()
        try await MQTTClientTests.waitFor("online") { rig.statuses.contains("online") }
        try await rig.gatewayAcknowledged()
        try rig.restartBroker()
        try await MQTTClientTests.waitFor("both clients back") { rig.gateway.isConnected && rig.listener.isConnected }
        try await MQTTClientTests.waitFor("online after the restart") { rig.statuses.count == 2 }
        try await rig.settle()
        #expect(rig.statuses == ["online", "online"], "after the broker's restart: \(rig.statuses)")
        try await rig.stopGateway()
        #expect(rig.statuses == ["online", "online", "offline"], "stopped cleanly: \(rig.statuses)")
        await rig.close()
    }

    /// The gateway's connection cut while the broker stays up (a relay in between drops it):
    /// the broker publishes the will, `offline`, and the gateway, reconnected, publishes
    /// discovery, state and then `online`, nothing else on `status`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: MQTTClientTests.mosquitto)))
    func aDropTheBrokerSeesGivesTheWillAloneThenOnline() async throws {
        let relay = Mutex<TCPRelay?>(nil)
        let rig = try await Rig { brokerPort in
            let made = try TCPRelay(to: brokerPort)
            relay.withLock { $0 = made }
            return made.port
        }
        let cutter = try #require(relay.withLock { $0 })
        defer { cutter.close() }
        try await rig.startClock()
        rig.startLink()
        try rig.startBridge()
        try await MQTTClientTests.waitFor("online") { rig.statuses.contains("online") }
        try await rig.settle()
        try await rig.gatewayAcknowledged()
        let beforeCut = rig.received.withLock { $0.count }
        cutter.cut()
        try await MQTTClientTests.waitFor("the will") { rig.statuses.count == 2 }
        #expect(rig.statuses == ["online", "offline"], "the broker published the will: \(rig.statuses)")
        try await MQTTClientTests.waitFor("online after the reconnect") { rig.statuses.count == 3 }
        try await rig.settle()
        #expect(rig.statuses == ["online", "offline", "online"], "reconnected: \(rig.statuses)")
        Self.expectDiscoveryAndStateFirst(rig.beforeOnline(from: beforeCut).filter { $0 != Self.topics.status })
        try await rig.stopGateway()
        #expect(rig.statuses == ["online", "offline", "online", "offline"], "stopped cleanly: \(rig.statuses)")
        await rig.close()
    }

    /// With no clock behind the link, the gateway says `offline` once the link has failed to
    /// reach it, and `online` once the clock is there; a clock that goes away is `offline`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: MQTTClientTests.mosquitto)))
    func theClocksReachabilityIsTheStatus() async throws {
        let rig = try await Rig()
        rig.startLink()
        try rig.startBridge()
        try await MQTTClientTests.waitFor("offline: no clock") { rig.statuses.count == 1 }
        #expect(rig.statuses == ["offline"])
        try await rig.startClock()
        try await MQTTClientTests.waitFor("online: the clock came") { rig.statuses.count == 2 }
        await rig.stopClock()
        try await MQTTClientTests.waitFor("offline: the clock went") { rig.statuses.count == 3 }
        try await rig.settle()
        #expect(rig.statuses == ["offline", "online", "offline"])
        try await rig.stopGateway()
        #expect(rig.statuses == ["offline", "online", "offline"], "a stop after offline says nothing more: \(rig.statuses)")
        await rig.close()
    }
}

/// A TCP relay on 127.0.0.1 in front of a broker: each connection it accepts goes on to
/// 127.0.0.1:`to`; `cut` shuts every connection down at once, as a network that drops
/// them would, while it goes on accepting. Blocking sockets on threads of its own.
final class TCPRelay: Sendable {
    let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    /// Both sockets of each relayed connection, and whether `close` ran.
    private let open = Mutex<(pairs: [(Int32, Int32)], closed: Bool)>(([], false))

    init(to upstreamPort: Int) throws {
        let (listener, port) = try MQTTClientTests.loopbackSocket(port: 0)
        try #require(listen(listener, 8) == 0, "relay: listen")
        self.listener = listener
        self.port = port
        self.upstreamPort = upstreamPort
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }  // closed
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(upstreamPort).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            let kept = open.withLock { open in
                guard connected, !open.closed else { return false }
                open.pairs.append((client, upstream))
                return true
            }
            guard kept else {
                _ = Glibc.close(client)
                _ = Glibc.close(upstream)
                continue
            }
            let finished = Mutex(0)
            for (from, to) in [(client, upstream), (upstream, client)] {
                Thread.detachNewThread { [self] in
                    pump(from: from, to: to)
                    // Both directions over: the pair's sockets are closed, once.
                    let last = finished.withLock { count in
                        count += 1
                        return count == 2
                    }
                    guard last else { return }
                    open.withLock { open in
                        open.pairs.removeAll { $0.0 == client }
                        _ = Glibc.close(client)
                        _ = Glibc.close(upstream)
                    }
                }
            }
        }
    }

    /// Copies bytes until either side ends, then shuts both down (which ends the other pump).
    private func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        copying: while true {
            let count = read(from, &buffer, buffer.count)
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let written = buffer[sent..<count].withUnsafeBytes { write(to, $0.baseAddress, $0.count) }
                guard written > 0 else { break copying }
                sent += written
            }
        }
        _ = shutdown(from, Int32(SHUT_RDWR))
        _ = shutdown(to, Int32(SHUT_RDWR))
    }

    /// Drops every relayed connection: both ends see it closed, with no MQTT DISCONNECT.
    func cut() {
        open.withLock { open in
            for (client, upstream) in open.pairs {
                _ = shutdown(client, Int32(SHUT_RDWR))
                _ = shutdown(upstream, Int32(SHUT_RDWR))
            }
        }
    }

    /// Stops accepting and cuts what is open. Once only (the listener's number may be reused).
    func close() {
        let wasClosed = open.withLock { open in
            defer { open.closed = true }
            return open.closed
        }
        guard !wasClosed else { return }
        _ = shutdown(listener, Int32(SHUT_RDWR))
        _ = Glibc.close(listener)
        cut()
    }
}
