import ArgumentParser
import ConnectionAdmission
import GatewayAccess
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import CommandLineSupport
import Logging
import Platform
import RemoteGateway
import RoundClockConfig

/// `roundclock-gateway`: the phone remote (docs/remote.md). It serves the page and
/// the JSON API and reaches the clock only through its control socket; no device access.
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundclock-gateway",
        abstract: "The phone remote of RoundClock: a page and a JSON API that drive the clock through its control socket.",
        version: "0.1.0"
    )

    @Option(name: .long, help: "The config file with the [remote] table (default \(Config.defaultPath); without that file, built-in defaults).")
    var config: String?

    @Option(name: .long, help: "The clock's control socket (default [remote] control, \(RemoteSettings.defaultControlSocket)).")
    var control: String?

    @Option(name: .long, help: "HOST:PORT to serve on (default [remote] listen, 0.0.0.0:80); port 0 takes any free port.")
    var listen: String?

    @Option(name: .long, help: "Where the generated PIN and the known phones are kept (default $STATE_DIRECTORY, else /var/lib/roundclock-gateway).")
    var stateDir: String?

    @Option(name: .long, help: "The page's files (default /usr/share/roundclock-gateway/public, else the checkout's Gateway/Public).")
    var pageDir: String?

    @Option(name: .long, help: "Connections kept open at once, from everyone (default \(ConnectionBounds.standard.total)); needs that many open files and \(OpenFiles.reserve) more.")
    var maxConnections = ConnectionBounds.standard.total

    @Option(name: .long, help: "Connections of no session kept open at once from one IPv4 address or IPv6 /64 (default \(ConnectionBounds.standard.perAddress)); a newer one closes the idlest.")
    var maxConnectionsPerAddress = ConnectionBounds.standard.perAddress

    @Flag(name: .long, help: "Print the PIN (the configured one, or the generated one, made now if there is none yet) and exit.")
    var showPin = false

    func validate() throws {
        guard (1...65_536).contains(maxConnections) else { throw ValidationError("--max-connections must be 1 to 65536, not \(maxConnections)") }
        guard (1...maxConnections).contains(maxConnectionsPerAddress) else {
            throw ValidationError("--max-connections-per-address must be 1 to --max-connections (\(maxConnections)), not \(maxConnectionsPerAddress)")
        }
    }

    func run() async throws {
        let loaded = try loadConfig()
        var remote = loaded.remote
        if let listen {
            do throws(ListenAddress.Problem) {
                remote.listen = try ListenAddress.parse(listen, allowAnyPort: true)
            } catch {
                throw ValidationError("--listen \(error.message)")
            }
        }
        if let control {
            guard !control.isEmpty else { throw ValidationError("--control needs the path of the clock's socket") }
            remote.control = control
        }
        let pin: String
        do {
            pin = try PinFile.pin(configured: remote.pin, stateDirectory: stateDirectory)
        } catch {
            StandardStream.error.write("error: \(error)\n")
            throw ExitCode(ExitStatus.cannotCreate)
        }
        if showPin {
            StandardStream.output.write(pin + "\n")
            return
        }
        if let problem = OpenFiles.problem(connections: maxConnections) {
            StandardStream.error.write("error: \(problem)\n")
            throw ExitCode(ConfigError.exitCode)
        }
        var bounds = ConnectionBounds.standard
        bounds.total = maxConnections
        bounds.perAddress = maxConnectionsPerAddress
        var logger = Logger(label: "roundclock-gateway")
        logger.logLevel = .notice
        let page: StaticPage
        do {
            page = try StaticPage(directory: pageDirectory)
        } catch {
            StandardStream.error.write("error: the page's files: \(error)\n")
            throw ExitCode(ConfigError.exitCode)
        }
        let tls = remote.tlsCertificate.flatMap { cert in remote.tlsKey.map { (certificate: cert, key: $0) } }
        let mqtt = try MQTTOptions.setup(loaded, version: Self.configuration.version, logger: logger)
        var settings = GatewayServer.Settings(listen: remote.listen, control: remote.control, pin: pin, page: page,
                                              programs: loaded.catalog.map(\.name), tls: tls,
                                              mqtt: mqtt, syncGroup: try SyncOptions.group(loaded, mqtt: mqtt),
                                              hosts: AllowedHosts(configured: remote.hosts, machine: MQTTOptions.hostname(),
                                                                  listen: remote.listen.host),
                                              bounds: bounds, stateDirectory: stateDirectory)
        settings.displayPin = remote.displayPin
        settings.pinOnPanels = remote.pinOnPanels
        settings.display = DisplayFeed(utcOffset: LocalTime.utcOffset, cadence: loaded.cadence, colors: remote.displayColors)
        let app: Application<RouterResponder<GatewayContext>>
        do {
            app = try GatewayServer.application(settings, logger: logger)
        } catch {
            let files = tls.map { "tls_cert \($0.certificate), tls_key \($0.key)" } ?? "TLS"
            StandardStream.error.write("error: \(loaded.file): [remote] \(files): \(error)\n")
            throw ExitCode(ConfigError.exitCode)
        }
        // After every check that can fail, so a bad start stays one line.
        if let notice = PinFile.shortPinNotice(pin: pin, configured: remote.pin != nil, stateDirectory: stateDirectory) {
            logger.notice("\(notice)")
        }
        do {
            try await app.runService()
        } catch {
            StandardStream.error.write("error: \(error)\n")
            throw ExitCode(ExitStatus.software)
        }
    }

    private func loadConfig() throws -> Config {
        do {
            // The clock's sound files are its own: the gateway plays nothing and does not read them.
            if let config { return try Config.load(config, readingSoundFiles: false) }
            if !DurableFiles.isFree(Config.defaultPath) { return try Config.load(Config.defaultPath, readingSoundFiles: false) }
            return Config.defaults()
        } catch {
            StandardStream.error.write("error: \(error)\n")
            throw ExitCode(ConfigError.exitCode)
        }
    }

    private var stateDirectory: String {
        if let stateDir { return stateDir }
        // systemd's StateDirectory= may list several, separated by ':'.
        if let fromSystemd = getenv("STATE_DIRECTORY").map({ String(cString: $0) })?.split(separator: ":").first { return String(fromSystemd) }
        return "/var/lib/roundclock-gateway"
    }

    private var pageDirectory: String {
        if let pageDir { return pageDir }
        let installed = "/usr/share/roundclock-gateway/public"
        if !DurableFiles.isFree(installed) { return installed }
        // A development build: the checkout's Gateway/Public, next to Sources/.
        let source = "\(#filePath)"
        let gateway = source.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
        return gateway + "/Public"
    }
}
