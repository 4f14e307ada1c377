import Testing
@testable import RemoteGateway

/// The PIN's rate limit, the sessions and the PIN comparison, on an injected clock reading.
@Suite struct AccessTests {
    let start = ContinuousClock.now

    @Test func fiveWrongPinsPerClientThenRefusedUntilTheOldestLeavesTheWindow() {
        let access = Access(pin: "482913", tls: false)
        for i in 0..<PinAttempts.perClient {
            #expect(access.login(pin: "000000", client: "10.0.0.7", now: start + .seconds(i)) == .wrongPin)
        }
        // The right PIN is not even looked at while limited.
        #expect(access.login(pin: "482913", client: "10.0.0.7", now: start + .seconds(10)) == .limited(retryAfterSeconds: 50))
        #expect(access.login(pin: "482913", client: "10.0.0.7", now: start + .seconds(59.5)) == .limited(retryAfterSeconds: 1))
        // Another client is not affected.
        guard case .session = access.login(pin: "482913", client: "10.0.0.8", now: start + .seconds(10)) else {
            Issue.record("another client was refused"); return
        }
        // The first failure left the window at 60 s: one more try.
        guard case .session = access.login(pin: "482913", client: "10.0.0.7", now: start + .seconds(60)) else {
            Issue.record("still limited after the window"); return
        }
    }

    @Test func twentyWrongPinsFromManyClientsLimitEveryone() {
        var attempts = PinAttempts()
        for i in 0..<PinAttempts.overall {
            #expect(attempts.check(client: "10.0.1.\(i)", now: start) == .allowed)
            attempts.recordFailure(client: "10.0.1.\(i)", now: start)
        }
        #expect(attempts.check(client: "10.0.2.1", now: start + .seconds(1)) == .limited(retryAfterSeconds: 59))
        #expect(attempts.check(client: "10.0.2.1", now: start + .seconds(60)) == .allowed)
    }

    @Test func aRightPinClearsTheClientsFailures() {
        var attempts = PinAttempts()
        for _ in 0..<(PinAttempts.perClient - 1) { attempts.recordFailure(client: "a", now: start) }
        attempts.recordSuccess(client: "a")
        for _ in 0..<(PinAttempts.perClient - 1) { attempts.recordFailure(client: "a", now: start) }
        #expect(attempts.check(client: "a", now: start) == .allowed)
    }

    @Test func trackedClientsAreBounded() {
        var attempts = PinAttempts()
        for i in 0..<(PinAttempts.trackedClients + 500) {
            attempts.recordFailure(client: "c\(i)", now: start + .milliseconds(i))
            _ = attempts.check(client: "c\(i)", now: start + .milliseconds(i))
        }
        #expect(attempts.trackedCount <= PinAttempts.trackedClients)
    }

    @Test func sessionsExpireAndAreBounded() {
        var sessions = SessionStore()
        let token = sessions.open(now: start)
        #expect(token.count == 64 && token.allSatisfy { $0.isHexDigit })
        #expect(sessions.isValid(token, now: start + .seconds(3600)))
        #expect(!sessions.isValid(token, now: start + SessionStore.lifetime))
        #expect(!sessions.isValid(nil, now: start) && !sessions.isValid("", now: start))
        var tokens: [String] = []
        for _ in 0..<(SessionStore.capacity + 10) { tokens.append(sessions.open(now: start)) }
        #expect(sessions.count == SessionStore.capacity)
        #expect(!sessions.isValid(tokens[0], now: start), "the oldest is dropped")
        #expect(sessions.isValid(tokens.last, now: start))
        sessions.close(tokens.last ?? "")
        #expect(!sessions.isValid(tokens.last, now: start))
        #expect(Set(tokens).count == tokens.count, "tokens are random")
    }

    @Test func pinComparison() {
        #expect(pinsMatch("482913", "482913"))
        #expect(!pinsMatch("482914", "482913"))
        #expect(!pinsMatch("48291", "482913"))
        #expect(!pinsMatch("4829130", "482913"))
        #expect(!pinsMatch("", "482913"))
        #expect(!pinsMatch("48291\u{0}", "482913"))
    }

    @Test func sessionCookieIsHttpOnlyStrictAndSecureUnderTLS() {
        let plain = Access(pin: "1234", tls: false).sessionCookie("abc").description
        #expect(plain.contains("HttpOnly") && plain.contains("SameSite=Strict") && plain.contains("Path=/") && !plain.contains("Secure"))
        let tls = Access(pin: "1234", tls: true).sessionCookie("abc").description
        #expect(tls.contains("Secure") && tls.contains("HttpOnly") && tls.contains("SameSite=Strict"))
    }
}
