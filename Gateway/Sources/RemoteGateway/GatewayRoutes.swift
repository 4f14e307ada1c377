import ClockLink
import ControlProtocol
import GatewayAccess
import Hummingbird
import HummingbirdWebSocket
import JSON
import NIOCore

/// The page and the JSON API (docs/remote.md). Every `/api` route but login needs a
/// session; login, command and the WebSocket upgrade check `Origin` first.
struct GatewayRoutes: Sendable {
    let link: ClockLink
    let access: Access
    let guessLog: PinGuessLog
    let page: StaticPage
    /// The program picker's choices: the presets MODE cycles, then the config's programs.
    let programs: [String]
    /// The TV page's messages (`DisplayService`) and whether viewing it needs the PIN.
    let display: LiveHub
    let displayPin: Bool
    /// Where a TV page without a session takes a viewer's place, and a login that succeeds a phone's.
    let connections: ConnectionTable

    /// Largest login body (`{"pin": "…"}`).
    static let maximumLoginBytes = 256

    func add(to router: Router<GatewayContext>) {
        for path in page.files.keys {
            router.get(RouterPath(path)) { _, _ -> Response in page.response(path) ?? Response(status: .notFound) }
            router.head(RouterPath(path)) { _, _ -> Response in page.response(path, head: true) ?? Response(status: .notFound) }
        }
        router.post("/api/login") { request, context -> Response in try await login(request, context) }
        router.post("/api/logout") { request, _ -> Response in
            guard access.originIsAllowed(request) else { return Self.crossSite }
            access.logout(request)
            var response = JSONReply.body(.ok, #"{"ok": true}"#)
            response.setCookie(access.expiredCookie())
            return response
        }
        router.get("/api/state") { request, _ -> Response in
            guard access.hasSession(request) else { return Self.noSession }
            guard let state = link.state else { return JSONReply.failure(.serviceUnavailable, "clock unreachable") }
            return JSONReply.body(.ok, state)
        }
        router.get("/api/programs") { request, _ -> Response in
            guard access.hasSession(request) else { return Self.noSession }
            return JSONReply.body(.ok, JSONReply.strings("programs", await pickerPrograms()))
        }
        router.post("/api/command") { request, context -> Response in try await command(request, context) }
        addEditor(to: router)
        router.get("/api/display-access") { request, _ -> Response in
            guard !displayPin || access.hasSession(request) else { return Self.noSession }
            return JSONReply.body(.ok, #"{"ok": true}"#)
        }
        DisplaySocket(access: access, hub: display, needsPin: displayPin, connections: connections).add(to: router)
        router.ws("/api/live") { request, _ -> RouterShouldUpgrade in
            guard access.originIsAllowed(request) else { throw HTTPError(.forbidden, message: "cross-site request refused") }
            guard access.hasSession(request) else { throw HTTPError(.unauthorized, message: "log in first: POST /api/login") }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let token = context.request.cookies[SessionStore.cookieName]?.value
            let lines = link.hub.subscribe(session: token)
            let expiry = access.expiry(of: token)
            // The page sends nothing; whatever comes is read and dropped (close and ping frames
            // are answered by the WebSocket layer), so the socket is never stuck.
            try await PageSocket.serve(lines, outbound: outbound, expiry: expiry) { for try await _ in inbound {} }
        }
    }

    static let crossSite = JSONReply.failure(.forbidden, "cross-site request refused (Origin is not this server)")
    static let noSession = JSONReply.failure(.unauthorized, "log in first: POST /api/login with {\"pin\": \"…\"}")

    func login(_ request: Request, _ context: GatewayContext) async throws -> Response {
        guard access.originIsAllowed(request) else { return Self.crossSite }
        let bytes = try await body(request, limit: Self.maximumLoginBytes)
        guard let pin = (try? JSONParser(maxBytes: Self.maximumLoginBytes, maxDepth: 2).parse(bytes))?["pin"]?.string else {
            return JSONReply.failure(.badRequest, "the body must be {\"pin\": \"…\"}")
        }
        let device = request.cookies[DeviceTokens.cookieName]?.value
        let outcome = access.login(pin: pin, client: context.client, device: device)
        guessLog.note(outcome, client: access.attemptKey(client: context.client, device: device))
        switch outcome {
        case .session(let token, let device):
            context.logger.notice("login from \(context.client)")
            connections.loggedIn(context.channel)
            var response = JSONReply.body(.ok, #"{"ok": true}"#)
            response.setCookie(access.sessionCookie(token))
            response.setCookie(access.deviceCookie(device))
            return response
        case .wrongPin:
            return JSONReply.failure(.unauthorized, "wrong PIN")
        case .limited(let seconds):
            var headers = HTTPFields()
            headers[.retryAfter] = String(seconds)
            return JSONReply.failure(.tooManyRequests, "too many wrong PINs; try again in \(seconds) s", headers: headers)
        }
    }

    func command(_ request: Request, _ context: GatewayContext) async throws -> Response {
        guard access.originIsAllowed(request) else { return Self.crossSite }
        guard access.hasSession(request) else { return Self.noSession }
        let line: String
        do {
            line = try CommandBody.line(try await body(request, limit: CommandBody.maximumBytes))
        } catch let problem as CommandBody.Problem {
            return JSONReply.failure(.badRequest, problem.description)
        }
        return await forward(line)
    }

    /// Sends `line` to the clock: 200 with its `ok` reply, 422 with its refusal, 502, 503 or
    /// 504 when there is no usable reply.
    func forward(_ line: String) async -> Response {
        do throws(ClockLink.CommandFailure) {
            let reply = try await link.send(line)
            switch ControlReply.parse(reply) {
            case .ok?: return JSONReply.body(.ok, reply)
            case .failed?: return JSONReply.body(.unprocessableContent, reply)
            case nil: return JSONReply.failure(.badGateway, "the clock's reply is not {\"ok\": …}")
            }
        } catch {
            switch error {
            case .unreachable: return JSONReply.failure(.serviceUnavailable, "clock unreachable")
            case .noReply: return JSONReply.failure(.gatewayTimeout, "the clock did not answer")
            }
        }
    }

    /// How long a request's body may take to arrive, once its head is in.
    static let bodyTimeout = Duration.seconds(10)

    /// The request body, refused with 413 beyond `limit` bytes and with 408 when it does not
    /// arrive within `bodyTimeout` (then the connection closes).
    func body(_ request: Request, limit: Int) async throws -> [UInt8] {
        do {
            return try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                group.addTask { Array(try await request.body.collect(upTo: limit).readableBytesView) }
                group.addTask {
                    try await Task.sleep(for: Self.bodyTimeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let bytes = first else {
                    throw HTTPError(.requestTimeout, headers: [.connection: "close"],
                                    message: "the body did not arrive within \(Self.bodyTimeout.components.seconds) s")
                }
                return bytes
            }
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: "the body is over \(limit) bytes")
        }
    }
}
