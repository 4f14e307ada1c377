@testable import ClockLink
@testable import ClockMQTT
import ControlProtocol
import Foundation
import Logging
import MosquittoClient
import RoundClockCore
import Synchronization
import Testing

/// What `ClockMQTT` publishes on `<prefix>/state` through a real Mosquitto, for the lines a
/// clock sends: one a second over boxing rounds, two a second (the colon) in clock mode, and
/// a program outside the select's options (its config republished before the report).
@Suite(.serialized) struct MQTTStateRateTests {
    static let topics = ClockTopics(prefix: "rc-rate/ring1")
    static let discovery = HomeAssistantDiscovery(topics: topics, discoveryPrefix: "homeassistant", programs: Presets.cycle.map(\.name),
                                                  version: "0.1.0")

    /// A gateway's bridge and a subscriber on its state and discovery topics, on one broker.
    struct Rig {
        var bridge: ClockMQTT
        var shared: Shared
    }

    /// What the broker delivered, and the gateway's CLOCK_REALTIME.
    final class Shared: Sendable {
        let received = Mutex<[MQTTMessage]>([])
        let now = Mutex<Int64>(SessionReportTests.anchor)
    }

    static func withRig(_ body: (Rig) async throws -> Void) async throws {
        let port = try MQTTClientTests.freePort()
        let broker = try MQTTClientTests.broker(port: port)
        defer { MQTTClientTests.kill(broker) }
        let logger = Logger(label: "test")
        let shared = Shared()
        let gateway = try MQTTClient(MQTTConnection(host: "127.0.0.1", port: port, clientID: "rc-rate-gw-\(getpid())", keepalive: 5), logger: logger)
        let link = ClockLink(path: "/nonexistent/control.sock", hub: LiveHub(), logger: logger)
        let bridge = try ClockMQTT(client: gateway, topics: topics, discovery: discovery, link: link, logger: logger,
                                   realtimeNow: { shared.now.withLock { $0 } })
        let listener = try MQTTClient(MQTTConnection(host: "127.0.0.1", port: port, clientID: "rc-rate-sub-\(getpid())", keepalive: 5),
                                      logger: logger)
        try listener.subscribe(topics.state) { message in shared.received.withLock { $0.append(message) } }
        try listener.subscribe("homeassistant/select/#") { message in shared.received.withLock { $0.append(message) } }
        try listener.start()
        try await MQTTClientTests.waitFor("the listener connected") { listener.isConnected }
        try gateway.start()
        try await MQTTClientTests.waitFor("the select's config from the gateway's connect") { !shared.received.withLock { $0.isEmpty } }
        try await body(Rig(bridge: bridge, shared: shared))
        await gateway.stop()
        await listener.stop()
    }

    /// Feeds `lines` at their instants (seconds after the anchor), then a marker line, and
    /// returns the state messages that came after the retained ones.
    static func feed(_ rig: Rig, _ lines: [(second: Double, line: ControlState)]) async throws -> [MQTTMessage] {
        let before = rig.shared.received.withLock { $0.count }
        for (second, line) in lines {
            rig.shared.now.withLock { $0 = SessionReportTests.anchor + Int64(second * 1e9) + 2_000_000 }
            await rig.bridge.clockSaid(line.line)
        }
        // A report of its own (its round is the count so far): when it arrives, all before it did.
        let marker = ControlState(state: "ready", phase: "prep", round: before, rounds: 99, program: "boxing", brightness: 0, panels: [])
        await rig.bridge.clockSaid(marker.line)
        try await MQTTClientTests.waitFor("the marker report") {
            rig.shared.received.withLock {
                $0.last.map { String(decoding: $0.payload, as: UTF8.self).contains(#""round": \#(before), "rounds": 99"#) } ?? false
            }
        }
        return rig.shared.received.withLock { Array($0[before...].dropLast()) }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: MQTTClientTests.mosquitto)))
    func boxingRoundsAndClockModePublishOnlyWhenTheSessionChanges() async throws {
        try await Self.withRig { rig in
            // 20 minutes of boxing, a line a second: prep, then 3:00 work / 1:00 rest.
            let boxing = (0..<1200).map { (Double($0), ClockLines.running(Presets.boxing, anchor: SessionReportTests.anchor, atSecond: $0)) }
            let boxingMessages = try await Self.feed(rig, boxing)
            let boxingPerMinute = Double(boxingMessages.count) / 20
            // 10 minutes of clock mode, the colon on and off every half second.
            let clock = (0..<1200).map { (Double($0) / 2, ClockLines.clock(time: $0 % 2 == 0 ? "15:00" : "1500")) }
            let clockMessages = try await Self.feed(rig, clock)
            let clockPerMinute = Double(clockMessages.count) / 10
            print("MQTTStateRateTests: state messages a minute: boxing \(boxingPerMinute) (\(boxingMessages.count) in 20 min, "
                + "1200 lines), clock mode \(clockPerMinute) (\(clockMessages.count) in 10 min, 1200 lines)")
            #expect(boxingMessages.allSatisfy { $0.retain == false && $0.topic == Self.topics.state }, "live deliveries of the state topic")
            #expect(boxingMessages.count == 11, "prep, then the work and the rest of rounds 1 to 5: \(boxingMessages.count)")
            #expect(boxingPerMinute <= 10 && clockPerMinute <= 10)
            #expect(clockMessages.count == 1, "clock mode: one report, whatever the colon does")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: MQTTClientTests.mosquitto)))
    func aProgramOutsideTheOptionsComesAfterItsOption() async throws {
        try await Self.withRig { rig in
            let program = try #require(try? ProgramSpec.parse("emom:12"))
            let messages = try await Self.feed(rig, [(0, ClockLines.ready(program)), (0.5, ClockLines.ready(program))])
            let select = "homeassistant/select/rc-rate_ring1/program/config"
            #expect(messages.map(\.topic) == [select, Self.topics.state], "the select's config first, then one report")
            let options = try #require(try JSONSerialization.jsonObject(with: Data(messages[0].payload)) as? [String: Any])["options"] as? [String]
            #expect(options == Presets.cycle.map(\.name) + ["emom:12"])
            // Back to a listed program: the options stay as they are.
            let again = try await Self.feed(rig, [(1, ClockLines.ready(Presets.boxing))])
            #expect(again.map(\.topic) == [Self.topics.state])
        }
    }
}
