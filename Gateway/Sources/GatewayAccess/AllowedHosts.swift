import Hummingbird
import NIOCore
import RoundClockConfig

/// The names a request's `Host` may carry (docs/remote.md, security model): `[remote]
/// hosts`, `<hostname>.local`, `localhost` and IP addresses. A DNS-rebinding page reaches the
/// gateway under its own name (`Host: evil.example`), so it is refused before it can log in,
/// send a command or open the WebSocket.
public struct AllowedHosts: Sendable, Hashable {
    /// Lowercase names, without a trailing dot.
    public let names: Set<String>

    /// `machine` is gethostname(2)'s name; `listen` the host of `[remote] listen` (kept
    /// when it is a name, not an address).
    public init(configured: [String], machine: String, listen: String = "") {
        var names = Set(configured.compactMap(RemoteSettings.hostName))
        names.insert("localhost")
        if let machine = RemoteSettings.hostName(machine) {
            names.insert(machine.hasSuffix(".local") ? machine : machine + ".local")
        }
        if let listen = RemoteSettings.hostName(listen), !Self.isIPv4(listen) { names.insert(listen) }
        self.names = names
    }

    /// Whether `authority` (`name`, `name:port`, `192.0.2.7:80`, `[2001:db8::1]:80`) names
    /// this gateway.
    public func allows(_ authority: String) -> Bool {
        guard let host = Self.host(of: authority) else { return false }
        if host.hasPrefix("[") { return Self.isIPv6(String(host.dropFirst().dropLast())) }
        if Self.isIPv4(host) { return true }
        guard let name = RemoteSettings.hostName(host) else { return false }
        return names.contains(name)
    }

    /// The host part of an authority, brackets kept for IPv6; `nil` when the port is not digits.
    static func host(of authority: String) -> String? {
        var host = Substring(authority)
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { return nil }
                port = rest.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        if let port, port.isEmpty || port.count > 5 || !port.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
        return host.isEmpty ? nil : String(host)
    }

    static func isIPv4(_ text: String) -> Bool {
        guard case .v4? = try? SocketAddress(ipAddress: text, port: 0) else { return false }
        return true
    }

    static func isIPv6(_ text: String) -> Bool {
        guard case .v6? = try? SocketAddress(ipAddress: text, port: 0) else { return false }
        return true
    }
}

/// Refuses, with 421, a request whose `Host` is not one of the gateway's names; every route
/// and the WebSocket upgrade pass through it first.
package struct HostCheck<Context: RequestContext>: RouterMiddleware {
    let hosts: AllowedHosts

    package init(hosts: AllowedHosts) { self.hosts = hosts }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, hosts.allows(authority) else {
            let shown = request.head.authority.map { "\"\($0)\"" } ?? "a request without Host"
            return JSONReply.failure(.misdirectedRequest,
                                     "\(shown) is not a name of this gateway; use <hostname>.local or its IP address, or add the name to [remote] hosts")
        }
        return try await next(request, context)
    }
}
