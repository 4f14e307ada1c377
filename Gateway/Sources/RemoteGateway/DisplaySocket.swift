import ClockLink
import GatewayAccess
import Hummingbird
import HummingbirdWebSocket
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// `/api/display`: the TV page's WebSocket. It checks `Origin` as `/api/live` does and, with
/// `[remote] display_pin = true`, a session. A page without a session takes a viewer's place
/// in the `ConnectionTable`, and is refused when its address or everyone has all of theirs
/// (the upgrade's refusal: 400, as docs/remote.md says); it then sends the latest `DisplayFeed` message
/// and each new one, and answers the page's pings (`DisplayPing`). Any other message, or
/// pings beyond the budget, closes it with the reason.
struct DisplaySocket: Sendable {
    let access: Access
    let hub: LiveHub
    let needsPin: Bool
    let connections: ConnectionTable

    func add(to router: Router<GatewayContext>) {
        router.ws("/api/display") { request, context -> RouterShouldUpgrade in
            guard access.originIsAllowed(request) else { throw HTTPError(.forbidden, message: "cross-site request refused") }
            let session = access.hasSession(request)
            guard !needsPin || session else {
                throw HTTPError(.unauthorized, message: "log in first: POST /api/login")
            }
            guard session || connections.becomeViewer(context.channel) else {
                throw HTTPError(.serviceUnavailable, message: "too many TV pages without a PIN; log in, or close one")
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let token = needsPin ? context.request.cookies[SessionStore.cookieName]?.value : nil
            let messages = hub.subscribe(session: token)
            let expiry = needsPin ? access.expiry(of: token) : nil
            try await PageSocket.serve(messages, outbound: outbound, expiry: expiry) {
                var ping = DisplayPing()
                for try await message in inbound.messages(maxSize: DisplayPing.maximumBytes) {
                    guard case .text(let text) = message else {
                        try? await outbound.close(.unacceptableData, reason: "text messages only")
                        return
                    }
                    let answer: String
                    do throws(DisplayPing.Refusal) {
                        answer = try ping.answer(text, now: .now) {
                            SystemReadings.clockReading(CLOCK_REALTIME).wholeNanoseconds / 1000
                        }
                    } catch {
                        try? await outbound.close(.policyViolation, reason: error.description)
                        return
                    }
                    try await outbound.write(.text(answer))
                }
            }
        }
    }
}
