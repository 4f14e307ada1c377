import Hummingbird
import NIOConcurrencyHelpers

/// Who may do what (docs/remote.md, security model): the PIN, its rate limit, the
/// sessions, and the `Origin` check of every state-changing request.
public final class Access: Sendable {
    private let pin: String
    /// Whether the page is served over TLS (the cookie gets `Secure`, origins are `https://`).
    public let tls: Bool
    private let sessions = NIOLockedValueBox(SessionStore())
    private let attempts = NIOLockedValueBox(PinAttempts())

    public init(pin: String, tls: Bool) {
        self.pin = pin
        self.tls = tls
    }

    public enum Login: Equatable {
        case session(token: String)
        case wrongPin
        case limited(retryAfterSeconds: Int)
    }

    /// Checks a PIN from `client`: refused without a look while the client is rate limited.
    public func login(pin given: String, client: String, now: ContinuousClock.Instant = .now) -> Login {
        let decision = attempts.withLockedValue { $0.check(client: client, now: now) }
        if case .limited(let seconds) = decision { return .limited(retryAfterSeconds: seconds) }
        guard pinsMatch(given, pin) else {
            attempts.withLockedValue { $0.recordFailure(client: client, now: now) }
            return .wrongPin
        }
        attempts.withLockedValue { $0.recordSuccess(client: client) }
        return .session(token: sessions.withLockedValue { $0.open(now: now) })
    }

    /// Ends the request's session; returns its token, so its WebSockets can be closed too.
    @discardableResult
    public func logout(_ request: Request) -> String? {
        guard let token = request.cookies[SessionStore.cookieName]?.value else { return nil }
        sessions.withLockedValue { $0.close(token) }
        return token
    }

    /// When the session of `token` ends, or `nil` when it is not live.
    public func expiry(of token: String?, now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant? {
        guard let token else { return nil }
        return sessions.withLockedValue { $0.isValid(token, now: now) ? $0.expiry(of: token) : nil }
    }

    /// Whether the request carries a live session cookie.
    public func hasSession(_ request: Request, now: ContinuousClock.Instant = .now) -> Bool {
        let token = request.cookies[SessionStore.cookieName]?.value
        return sessions.withLockedValue { $0.isValid(token, now: now) }
    }

    /// `Origin`, when sent (browsers send it on every POST and WebSocket upgrade), must be
    /// this very server as the browser reached it: `http[s]://` + the `Host` header. A
    /// request without `Origin` (curl, scripts) passes: a cross-site page cannot omit it.
    public func originIsAllowed(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority else { return false }
        return origin == (tls ? "https://" : "http://") + host
    }

    /// The session cookie: `HttpOnly`, `SameSite=Strict`, `Path=/`, `Secure` under TLS.
    public func sessionCookie(_ token: String) -> Cookie {
        Cookie(name: SessionStore.cookieName, value: token, maxAge: Int(SessionStore.lifetime.components.seconds),
               path: "/", secure: tls, httpOnly: true, sameSite: .strict)
    }

    /// A cookie that makes the browser forget the session.
    public func expiredCookie() -> Cookie {
        Cookie(name: SessionStore.cookieName, value: "", maxAge: 0, path: "/", secure: tls, httpOnly: true, sameSite: .strict)
    }
}
