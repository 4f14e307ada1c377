import ClockLink
import ClockMQTT
import ConnectionAdmission
import ControlProtocol
import GatewayAccess
import GroupBridges
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import MosquittoClient
import NIOHTTP1
import NIOSSL
import RoundClockConfig
import ServiceLifecycle

/// Everything `roundclock-gateway` serves, wired: the link to the clock and the PIN guessing
/// log (services of the application, so SIGTERM stops them), the routes, plain HTTP or TLS.
public struct GatewayServer {
    public struct Settings: Sendable {
        public var listen: ListenAddress
        public var control: String
        public var pin: String
        public var page: StaticPage
        public var programs: [String]
        /// PEM certificate chain and key; `nil` = plain HTTP.
        public var tls: (certificate: String, key: String)?
        /// `[mqtt]`: the client (not started yet), the clock's topics and the discovery; `nil` = no MQTT.
        public var mqtt: MQTTSetup?
        /// `[sync] group` (needs `mqtt`); `nil` = this clock is in no group.
        public var syncGroup: String?
        /// The names a request's `Host` may carry.
        public var hosts: AllowedHosts
        /// Connection caps and the handshake and head timeouts.
        public var bounds: ConnectionBounds
        /// Where the known phones are kept (`DeviceFile`); `nil` = in memory only.
        public var stateDirectory: String?
        /// The TV page: whether viewing needs the PIN, and what its feed needs (`DisplayFeed`).
        public var displayPin = false
        public var display = DisplayFeed(utcOffset: LocalTime.utcOffset)
        /// `[remote] pin_on_panels`: the clock hears the PIN (`show-pin`) on each connection.
        public var pinOnPanels = true

        public init(listen: ListenAddress, control: String, pin: String, page: StaticPage, programs: [String],
                    tls: (certificate: String, key: String)?, mqtt: MQTTSetup? = nil, syncGroup: String? = nil,
                    hosts: AllowedHosts, bounds: ConnectionBounds = .standard, stateDirectory: String? = nil) {
            self.listen = listen
            self.control = control
            self.pin = pin
            self.page = page
            self.programs = programs
            self.tls = tls
            self.mqtt = mqtt
            self.syncGroup = syncGroup
            self.hosts = hosts
            self.bounds = bounds
            self.stateDirectory = stateDirectory
        }
    }

    /// Seconds the clock shows the PIN at each connection while no phone has logged in.
    static let pinShownUnpaired = 120

    /// Largest WebSocket frame accepted from a page (it sends none).
    static let maximumFrame = 1024

    /// The server as configured; throws (NIOSSL's error) when a TLS file cannot be used.
    public static func application(_ settings: Settings, logger: Logger) throws -> Application<RouterResponder<GatewayContext>> {
        let hub = LiveHub()
        let displayHub = LiveHub()
        let link = ClockLink(path: settings.control, hub: hub, logger: logger)
        let deviceFile = settings.stateDirectory.map { DeviceFile(stateDirectory: $0, logger: logger) }
        let access = Access(pin: settings.pin, tls: settings.tls != nil, devices: deviceFile?.load() ?? DeviceTokens(),
                            deviceFile: deviceFile, sessionEnded: { hub.end(session: $0); displayHub.end(session: $0) })
        // The PIN for the clock's panels: shown at each connection until a phone has logged
        // in, and kept by the clock for its hold-STOP-press-START gesture.
        if settings.pinOnPanels {
            link.greet { [pin = settings.pin] in
                ControlRequest.command(.showPIN(pin: pin, seconds: access.knowsAPhone ? 0 : Self.pinShownUnpaired)).line
            }
        }
        let guessLog = PinGuessLog(logger: logger)
        let table = ConnectionTable(bounds: settings.bounds)
        let router = Router(context: GatewayContext.self)
        router.middlewares.add(HostCheck(hosts: settings.hosts))
        GatewayRoutes(link: link, access: access, guessLog: guessLog, page: settings.page, programs: settings.programs,
                      display: displayHub, displayPin: settings.displayPin, connections: table).add(to: router)

        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: .seconds(10)),
            ws: .init(maxFrameSize: maximumFrame, autoPing: .enabled(timePeriod: .seconds(20)), validateUTF8: true)
        )
        let scheme = settings.tls == nil ? "http" : "https"
        let tlsConfiguration: TLSConfiguration? = try settings.tls.map { tls in
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
            return .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        }
        let webSocketResponder = router.buildResponder()
        let classify: @Sendable (HTTPRequestHead) -> ConnectionTable.Policy.Head = { access.admissionHead($0) }
        let server = HTTPServerBuilder { responder in
            let http = HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration)
            guard let tlsConfiguration else { return GuardedChannel(base: http, table: table, tls: false, classify: classify) }
            return GuardedChannel(base: try TLSChannel(http, tlsConfiguration: tlsConfiguration), table: table, tls: true,
                                  classify: classify)
        }
        var services: [any Service] = [
            LinkService(link: link), DisplayService(link: link, feed: settings.display, hub: displayHub), PinGuessLogService(log: guessLog),
        ]
        var minuteLines: [@Sendable () -> String?] = [table.report]
        if let mqtt = settings.mqtt {
            let bridge = try ClockMQTT(client: mqtt.client, topics: mqtt.topics, discovery: mqtt.discovery, link: link, logger: logger)
            services.append(ClockMQTTService(bridge: bridge))
            minuteLines.append(bridge.commandLog.report)
            if let group = settings.syncGroup {
                let timeClient = try MQTTClient(GroupTimeBridge.connection(base: mqtt.client.connection, group: group), logger: logger)
                let time = try GroupTimeBridge(group: group, member: mqtt.client.connection.clientID, client: timeClient, logger: logger)
                services.append(GroupSyncService(sync: try GroupSessionBridge(group: group, client: mqtt.client, time: time, link: link, logger: logger)))
            }
        }
        services.append(MinuteReport(logger: logger, lines: minuteLines))
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(settings.listen.host, port: settings.listen.port), serverName: nil),
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? settings.listen.port
                logger.notice("listening on \(scheme)://\(ListenAddress(host: settings.listen.host, port: port)); clock socket \(settings.control)")
            },
            logger: logger
        )
    }
}

/// What `[mqtt]` adds to the gateway.
public struct MQTTSetup: Sendable {
    public var client: MQTTClient
    public var topics: ClockTopics
    public var discovery: HomeAssistantDiscovery
    public init(client: MQTTClient, topics: ClockTopics, discovery: HomeAssistantDiscovery) {
        self.client = client
        self.topics = topics
        self.discovery = discovery
    }
}

/// The clock on MQTT as a service: connects, runs until graceful shutdown, then publishes
/// `offline` and disconnects. A broker that is down never stops the gateway (libmosquitto
/// retries in the background).
struct ClockMQTTService: Service {
    let bridge: ClockMQTT
    func run() async throws {
        try bridge.client.start()
        await cancelWhenGracefulShutdown { await bridge.run() }
        await bridge.stop()
    }
}

/// The clock link as a swift-service-lifecycle service: it stops at graceful shutdown.
struct LinkService: Service {
    let link: ClockLink
    func run() async throws {
        await cancelWhenGracefulShutdown { await link.run() }
    }
}
