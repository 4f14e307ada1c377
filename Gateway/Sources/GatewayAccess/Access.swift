import ConnectionAdmission
import Hummingbird
import NIOConcurrencyHelpers
import NIOHTTP1

/// Who may do what (docs/remote.md, security model): the PIN, its back-off, the known
/// phones, the sessions, and the `Origin` check of every state-changing request.
public final class Access: Sendable {
    private let pin: String
    /// Whether the page is served over TLS (the cookie gets `Secure`, origins are `https://`).
    public let tls: Bool
    private let sessions = NIOLockedValueBox(SessionStore())
    private let attempts = NIOLockedValueBox(PinAttempts())
    private let devices: NIOLockedValueBox<DeviceTokens>
    /// Where the known phones are kept; `nil` = in memory only.
    private let deviceFile: DeviceFile?
    /// Told the token of each session that ends before its time: logged out, or dropped for a
    /// newer one (the page's WebSockets of that session close).
    private let sessionEnded: @Sendable (String) -> Void

    public init(pin: String, tls: Bool, devices: DeviceTokens = DeviceTokens(), deviceFile: DeviceFile? = nil,
                sessionEnded: @escaping @Sendable (String) -> Void = { _ in }) {
        self.pin = pin
        self.tls = tls
        self.devices = NIOLockedValueBox(devices)
        self.deviceFile = deviceFile
        self.sessionEnded = sessionEnded
    }

    /// Whether any phone has logged in with the PIN (and is still known).
    public var knowsAPhone: Bool { devices.withLockedValue { !$0.tokens.isEmpty } }

    public enum Login: Equatable, Sendable {
        /// `device`: the phone's `rc_device` token, new unless it came with a known one.
        case session(token: String, device: String)
        /// `inARow`: the key's wrong PINs in a row, this one included.
        case wrongPin(inARow: Int)
        case limited(retryAfterSeconds: Int)
    }

    /// The back-off's key of a login: a known phone's own key, else the client's address key.
    public func attemptKey(client: String, device: String?) -> String {
        guard let device, devices.withLockedValue({ $0.contains(device) }) else { return client }
        return DeviceTokens.key(device)
    }

    /// Checks a PIN from `client` (with the `rc_device` token it sent, if any): refused
    /// without a look while its key must wait. The check, the comparison and the count are
    /// one step under the lock, so parallel requests cannot slip past the back-off.
    public func login(pin given: String, client: String, device: String? = nil,
                      now: ContinuousClock.Instant = .now) -> Login {
        let key = attemptKey(client: client, device: device)
        let refusal: Login? = attempts.withLockedValue { attempts in
            if case .limited(let seconds) = attempts.check(client: key, now: now) {
                return .limited(retryAfterSeconds: seconds)
            }
            guard pinsMatch(given, pin) else {
                return .wrongPin(inARow: attempts.recordFailure(client: key, now: now))
            }
            attempts.recordSuccess(client: key)
            return nil
        }
        if let refusal { return refusal }
        // The known token the phone came with, else a new one.
        let phone = device.flatMap { key == DeviceTokens.key($0) ? $0 : nil } ?? DeviceTokens.make()
        let known = devices.withLockedValue { devices in
            devices.use(phone)
            return devices
        }
        deviceFile?.save(known)
        let (token, dropped) = sessions.withLockedValue { store in (store.open(now: now), store.lastDropped) }
        if let dropped { sessionEnded(dropped) }
        return .session(token: token, device: phone)
    }

    /// Ends the request's session (`sessionEnded` closes its WebSockets).
    public func logout(_ request: Request) {
        guard let token = request.cookies[SessionStore.cookieName]?.value else { return }
        sessions.withLockedValue { $0.close(token) }
        sessionEnded(token)
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

    /// What a request head is to the `ConnectionTable`: a phone's (a live session cookie, or
    /// a known phone's `rc_device`), a login, or another.
    public func admissionHead(_ head: HTTPRequestHead, now: ContinuousClock.Instant = .now) -> ConnectionTable.Policy.Head {
        let cookies = Cookies(from: head.headers["Cookie"])
        let token = cookies[SessionStore.cookieName]?.value
        if sessions.withLockedValue({ $0.isValid(token, now: now) }) { return .phone }
        if let device = cookies[DeviceTokens.cookieName]?.value, devices.withLockedValue({ $0.contains(device) }) { return .phone }
        if head.method == .POST, head.uri.split(separator: "?", maxSplits: 1).first == "/api/login" { return .login }
        return .other
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

    /// The device cookie: like the session cookie, for `DeviceTokens.lifetime` (400 days).
    public func deviceCookie(_ token: String) -> Cookie {
        Cookie(name: DeviceTokens.cookieName, value: token, maxAge: Int(DeviceTokens.lifetime.components.seconds),
               path: "/", secure: tls, httpOnly: true, sameSite: .strict)
    }

    /// A cookie that makes the browser forget the session.
    public func expiredCookie() -> Cookie {
        Cookie(name: SessionStore.cookieName, value: "", maxAge: 0, path: "/", secure: tls, httpOnly: true, sameSite: .strict)
    }
}
