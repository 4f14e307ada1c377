import Foundation
@testable import GatewayAccess
import NIOConcurrencyHelpers
import NIOCore
import RoundClockConfig
import Testing

/// The PIN's back-off, the sessions and the PIN comparison, on an injected clock reading.
@Suite struct AccessTests {
    let start = ContinuousClock.now

    /// When a key that tries whenever it may gets each try in, in seconds from its first.
    func triesWheneverAllowed(_ attempts: inout PinAttempts, client: String, count: Int) -> [Int] {
        var seconds = 0
        var times: [Int] = []
        while times.count < count {
            switch attempts.check(client: client, now: start + .seconds(seconds)) {
            case .allowed:
                times.append(seconds)
                attempts.recordFailure(client: client, now: start + .seconds(seconds))
            case .limited(let retryAfter):
                seconds += retryAfter
            }
        }
        return times
    }

    @Test func fiveFreeTriesThenThirtySecondsDoublingUpToAnHour() {
        let waits = (0...14).map { Int(PinAttempts.wait(afterFailures: $0).components.seconds) }
        #expect(waits == [0, 0, 0, 0, 0, 30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600])
        var attempts = PinAttempts()
        let times = triesWheneverAllowed(&attempts, client: "10.0.0.7", count: 14)
        #expect(times == [0, 0, 0, 0, 0, 30, 90, 210, 450, 930, 1890, 3810, 7410, 11010])
    }

    @Test func retryAfterCountsDownTheWaitAndTheRightPinIsNotLookedAt() {
        let access = Access(pin: "4829130571", tls: false)
        for i in 1...PinAttempts.freeFailures {
            #expect(access.login(pin: "0000000000", client: "10.0.0.7", now: start) == .wrongPin(inARow: i))
        }
        #expect(access.login(pin: "4829130571", client: "10.0.0.7", now: start + .seconds(10)) == .limited(retryAfterSeconds: 20))
        #expect(access.login(pin: "4829130571", client: "10.0.0.7", now: start + .seconds(29.5)) == .limited(retryAfterSeconds: 1))
        #expect(access.login(pin: "0000000000", client: "10.0.0.7", now: start + .seconds(30)) == .wrongPin(inARow: 6))
        #expect(access.login(pin: "4829130571", client: "10.0.0.7", now: start + .seconds(31)) == .limited(retryAfterSeconds: 59))
        guard case .session = access.login(pin: "4829130571", client: "10.0.0.7", now: start + .seconds(90)) else {
            Issue.record("the right PIN was refused after the wait"); return
        }
    }

    @Test func parallelLoginsGetNoMoreThanFiveTries() async {
        let access = Access(pin: "4829130571", tls: false)
        let now = start
        let outcomes = await withTaskGroup(of: Access.Login.self) { group in
            for _ in 0..<200 { group.addTask { access.login(pin: "0000000000", client: "10.0.0.7", now: now) } }
            return await group.reduce(into: [Access.Login]()) { $0.append($1) }
        }
        #expect(outcomes.filter { if case .wrongPin = $0 { true } else { false } }.count == PinAttempts.freeFailures)
        #expect(outcomes.filter { $0 == .limited(retryAfterSeconds: 30) }.count == 200 - PinAttempts.freeFailures)
    }

    @Test func aRightPinClearsTheKey() {
        let access = Access(pin: "4829130571", tls: false)
        var attempts = PinAttempts()
        let times = triesWheneverAllowed(&attempts, client: "unused", count: 8)
        for (i, seconds) in times.enumerated() {
            #expect(access.login(pin: "1", client: "a", now: start + .seconds(seconds)) == .wrongPin(inARow: i + 1))
        }
        let afterWait = start + .seconds(times[7] + 240)
        guard case .session = access.login(pin: "4829130571", client: "a", now: afterWait) else {
            Issue.record("the right PIN was refused"); return
        }
        for i in 1...PinAttempts.freeFailures {
            #expect(access.login(pin: "1", client: "a", now: afterWait) == .wrongPin(inARow: i))
        }
    }

    @Test func aKeyQuietForADayIsForgotten() {
        var attempts = PinAttempts()
        let times = triesWheneverAllowed(&attempts, client: "a", count: 12)
        let last = start + .seconds(times[11])
        // 23 h later the key still waits an hour after its next wrong PIN.
        var notYet = attempts
        notYet.recordFailure(client: "a", now: last + .seconds(23 * 3600))
        #expect(notYet.check(client: "a", now: last + .seconds(23 * 3600 + 1)) == .limited(retryAfterSeconds: 3599))
        // 24 h later it has five free tries again, then waits 30 s.
        let later = last + PinAttempts.forgetAfter
        for i in 1...PinAttempts.freeFailures {
            #expect(attempts.check(client: "a", now: later) == .allowed)
            #expect(attempts.recordFailure(client: "a", now: later) == i)
        }
        #expect(attempts.check(client: "a", now: later) == .limited(retryAfterSeconds: 30))
    }

    @Test func atMost4096KeysAndTheOldestFailureIsForgotten() {
        var attempts = PinAttempts()
        for _ in 0..<PinAttempts.freeFailures { attempts.recordFailure(client: "old", now: start) }
        for i in 0..<(PinAttempts.trackedKeys - 2) { attempts.recordFailure(client: "c\(i)", now: start + .seconds(1)) }
        for _ in 0..<PinAttempts.freeFailures { attempts.recordFailure(client: "kept", now: start + .seconds(2)) }
        #expect(attempts.trackedCount == PinAttempts.trackedKeys)
        for i in 0..<500 { attempts.recordFailure(client: "new\(i)", now: start + .seconds(3)) }
        #expect(attempts.trackedCount == PinAttempts.trackedKeys)
        #expect(attempts.check(client: "old", now: start + .seconds(4)) == .allowed)
        #expect(attempts.check(client: "kept", now: start + .seconds(4)) == .limited(retryAfterSeconds: 28))
    }

    @Test func manyGuessingKeysNeverHoldBackAnother() {
        let access = Access(pin: "4829130571", tls: false)
        let attackers = (1...254).map { "10.0.0.\($0)" } + (1...10).map { "2001:db8::\($0)" }
        var attempts = PinAttempts()
        let times = triesWheneverAllowed(&attempts, client: "unused", count: 20)
        for seconds in times {
            for attacker in attackers {
                _ = access.login(pin: "0000000000", client: attacker, now: start + .seconds(seconds))
            }
        }
        let end = start + .seconds(times[19])
        #expect(access.login(pin: "0000000000", client: "10.0.0.1", now: end) == .limited(retryAfterSeconds: 3600))
        #expect(access.login(pin: "0000000000", client: "10.0.1.1", now: end) == .wrongPin(inARow: 1))
        guard case .session = access.login(pin: "4829130571", client: "10.0.1.1", now: end) else {
            Issue.record("a coach's address was held back by others"); return
        }
    }

    func client(_ ip: String) throws -> String { AddressKey(try SocketAddress(ipAddress: ip, port: 50000)).description }

    @Test func aGuesserInTheLANsSlash64NeverHoldsBackANewPhone() throws {
        let access = Access(pin: "4829130571", tls: false)
        for n in 1...PinAttempts.freeFailures {
            #expect(access.login(pin: "0000000000", client: try client("fd00::bad"), now: start) == .wrongPin(inARow: n))
        }
        #expect(access.login(pin: "4829130571", client: try client("fd00::bad"), now: start) == .limited(retryAfterSeconds: 30))
        guard case .session = access.login(pin: "4829130571", client: try client("fd00::c0c4"), now: start) else {
            Issue.record("a new phone in the guesser's /64 was held back"); return
        }
    }

    @Test func aFloodOfAddressesInOneSlash64StaysWithinTheTable() throws {
        var attempts = PinAttempts()
        for n in 0..<(PinAttempts.trackedKeys + 1000) {
            attempts.recordFailure(client: try client("fd00::1:\(String(n, radix: 16))"), now: start + .milliseconds(n))
        }
        #expect(attempts.trackedCount == PinAttempts.trackedKeys)
        #expect(attempts.check(client: try client("fd00::c0c4"), now: start + .seconds(10)) == .allowed)
    }

    // MARK: The generated PIN against the enforced rate

    /// Tries one key gets in within a year: whenever allowed, or pausing a day to be
    /// forgotten each time the wait reaches an hour.
    func triesInAYear(pausingToBeForgotten: Bool) -> Int {
        var attempts = PinAttempts()
        var seconds = 0
        var tries = 0
        while seconds <= PinStrength.secondsPerYear {
            switch attempts.check(client: "a", now: start + .seconds(seconds)) {
            case .allowed:
                tries += 1
                attempts.recordFailure(client: "a", now: start + .seconds(seconds))
            case .limited(let retryAfter):
                let pause = pausingToBeForgotten && retryAfter == 3600
                seconds += pause ? Int(PinAttempts.forgetAfter.components.seconds) : retryAfter
            }
        }
        return tries
    }

    @Test func aGeneratedPinIsFoundWithinAYearWithAChanceWellUnderOnePercent() {
        let perKey = triesInAYear(pausingToBeForgotten: false)
        #expect(perKey == 8_770)
        #expect(PinStrength.triesPerKey(withinSeconds: PinStrength.secondsPerYear) == perKey)
        #expect(triesInAYear(pausingToBeForgotten: true) < perKey, "being forgotten does not pay")
        #expect(PinStrength.attackerKeys == 254 + 10)
        #expect(PinStrength.triesPerYear == 2_315_280)
        #expect(PinFile.generatedDigits == 10 && RemoteSettings.pinLengths.contains(PinFile.generatedDigits))
        // 0.023 %; one digit less would be 0.23 %, not well under 1 %.
        #expect(PinStrength.yearlyChance(digits: PinFile.generatedDigits) < 0.001)
        #expect(PinStrength.yearlyChance(digits: PinFile.generatedDigits - 1) > 0.001)
        let percents = (8...10).map { (PinStrength.yearlyChance(digits: $0) * 100_000).rounded() / 1000 }
        #expect(percents == [2.315, 0.232, 0.023])
    }

    @Test func aShortPinGetsOneNoticeWithTheAverageTimeToFindIt() {
        #expect(PinStrength.averageSecondsToFind(digits: 4) == 3810 + 7 * 3600)
        #expect(PinFile.shortPinNotice(pin: "482913", configured: true, stateDirectory: "/s")
            == "[remote] pin has 6 digits: guessing at the enforced rate finds it in about 78 days on average; "
            + "a generated PIN has 10 digits")
        #expect(PinFile.shortPinNotice(pin: "4829", configured: true, stateDirectory: "/s")?.contains("about 8 hours") == true)
        #expect(PinFile.shortPinNotice(pin: "482913", configured: false, stateDirectory: "/var/lib/rc")
            == "the stored PIN has 6 digits (found in about 78 days on average); deleting /var/lib/rc/pin makes "
            + "a new 10-digit one at the next start")
        #expect(PinFile.shortPinNotice(pin: "4829130571", configured: true, stateDirectory: "/s") == nil)
        #expect(PinFile.shortPinNotice(pin: "4829130571", configured: false, stateDirectory: "/s") == nil)
    }

    // MARK: The log of guessing

    @Test func guessingIsSummedUpInOneLineAMinute() {
        var summary = PinGuessSummary()
        #expect(summary.count(.wrongPin, client: "127.0.0.2", now: start) == nil)
        for i in 0..<1200 {
            #expect(summary.count(.refused, client: "127.0.0.2", now: start + .milliseconds(i)) == nil)
        }
        #expect(summary.count(.wrongPin, client: "127.0.0.2", now: start + .seconds(30)) == nil)
        #expect(summary.count(.wrongPin, client: "127.0.0.2", now: start + .seconds(40)) == nil)
        #expect(summary.count(.wrongPin, client: "10.0.0.9", now: start + .seconds(50)) == nil)
        #expect(summary.line(now: start + .seconds(59.9)) == nil)
        #expect(summary.due == start + .seconds(60))
        #expect(summary.count(.refused, client: "10.0.0.9", now: start + .seconds(61))
            == "PIN guessing: 4 wrong PINs and 1,200 refused attempts from 2 addresses in the last minute "
            + "(most: 127.0.0.2, 1,203)")
        // The attempt at 61 s opens the next minute.
        #expect(summary.line(now: start + .seconds(120)) == nil)
        #expect(summary.line(now: start + .seconds(121))
            == "PIN guessing: 0 wrong PINs and 1 refused attempt from 1 address in the last minute (most: 10.0.0.9, 1)")
        #expect(summary.due == nil)
        #expect(summary.line(now: start + .seconds(500)) == nil, "nothing counted, no line")
        #expect(summary.count(.wrongPin, client: "10.0.0.9", now: start + .seconds(501)) == nil)
        #expect(summary.line(now: start + .seconds(502), force: true)
            == "PIN guessing: 1 wrong PIN and 0 refused attempts from 1 address in the last minute (most: 10.0.0.9, 1)")
    }

    @Test func numbersInGroupsOfThree() {
        #expect([0, 999, 1_000, 1_840, 212_000, 1_000_000].map(grouped) == ["0", "999", "1,000", "1,840", "212,000", "1,000,000"])
    }

    @Test func theFirstWrongPinIsOneWarningTheRestGoIntoTheSummary() {
        let captured = ClockLinkTests.Captured()
        let log = PinGuessLog(logger: captured.logger)
        let access = Access(pin: "4829130571", tls: false)
        for _ in 0..<7 {
            for client in ["10.0.0.1", "10.0.0.2"] {
                log.note(access.login(pin: "1", client: client, now: start), client: client, now: start)
            }
        }
        #expect(captured.lines.withLockedValue { $0 } == ["warning: wrong PIN from 10.0.0.1", "warning: wrong PIN from 10.0.0.2"])
        log.flush(now: start + .seconds(59))
        #expect(captured.lines.withLockedValue { $0.count } == 2)
        log.flush(now: start + .seconds(60))
        #expect(captured.lines.withLockedValue { $0.last }
            == "warning: PIN guessing: 8 wrong PINs and 4 refused attempts from 2 addresses in the last minute "
            + "(most: 10.0.0.1, 6)")
    }

    @Test func theServiceLogsADueSummaryWithoutFurtherAttemptsAndTheRestAtShutdown() async throws {
        let captured = ClockLinkTests.Captured()
        let log = PinGuessLog(logger: captured.logger)
        let aMinuteAgo = ContinuousClock.now - .seconds(61)
        log.note(.wrongPin(inARow: 2), client: "10.0.0.1", now: aMinuteAgo)
        let service = Task { try await PinGuessLogService(log: log).run() }
        // Generous: on a loaded machine the service's task may wait long for a thread.
        let deadline = ContinuousClock.now + .seconds(60)
        while captured.lines.withLockedValue({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(captured.lines.withLockedValue { $0 }
            == ["warning: PIN guessing: 1 wrong PIN and 0 refused attempts from 1 address in the last minute (most: 10.0.0.1, 1)"])
        log.note(.limited(retryAfterSeconds: 30), client: "10.0.0.2")
        service.cancel()
        try await service.value
        #expect(captured.lines.withLockedValue { $0.count } == 2)
        #expect(captured.lines.withLockedValue { $0.last }?.contains("1 refused attempt from 1 address") == true)
    }

    // MARK: Known phones

    @Test func aKnownPhoneIsCountedUnderItsOwnKey() {
        let access = Access(pin: "4829130571", tls: false)
        guard case .session(_, let device) = access.login(pin: "4829130571", client: "10.0.0.7", now: start) else {
            Issue.record("the right PIN was refused"); return
        }
        #expect(device.count == 64 && device.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        #expect(access.attemptKey(client: "10.0.0.7", device: device) == "device:" + device.prefix(8))
        // A stranger at the same address makes it wait an hour.
        var attempts = PinAttempts()
        for seconds in triesWheneverAllowed(&attempts, client: "unused", count: 12) {
            _ = access.login(pin: "0000000000", client: "10.0.0.7", now: start + .seconds(seconds))
        }
        let later = start + .seconds(3811)
        #expect(access.login(pin: "4829130571", client: "10.0.0.7", now: later) == .limited(retryAfterSeconds: 3599))
        #expect(access.login(pin: "4829130571", client: "10.0.0.7", device: String(repeating: "1", count: 64), now: later)
            == .limited(retryAfterSeconds: 3599), "a made-up token counts as the address")
        guard case .session(_, let same) = access.login(pin: "4829130571", client: "10.0.0.7", device: device, now: later) else {
            Issue.record("the known phone was held back by a stranger"); return
        }
        #expect(same == device, "a known phone keeps its token")
        // The phone's own wrong PINs hold back only the phone.
        for i in 1...5 { _ = access.login(pin: "1", client: "10.0.0.9", device: device, now: later + .seconds(i)) }
        #expect(access.login(pin: "1", client: "10.0.0.9", device: device, now: later + .seconds(7)) == .limited(retryAfterSeconds: 28))
        #expect(access.login(pin: "1", client: "10.0.0.9", now: later + .seconds(7)) == .wrongPin(inARow: 1))
    }

    @Test func atMost64PhonesAndTheLeastRecentlyUsedIsDropped() {
        var known = DeviceTokens()
        let tokens = (0..<(DeviceTokens.capacity + 1)).map { _ in DeviceTokens.make() }
        for token in tokens { known.use(token) }
        #expect(known.tokens.count == DeviceTokens.capacity)
        #expect(!known.contains(tokens[0]) && known.contains(tokens[1]))
        known.use(tokens[1])
        known.use(DeviceTokens.make())
        #expect(known.contains(tokens[1]) && !known.contains(tokens[2]), "using a phone keeps it")
        #expect(DeviceTokens(fileText: known.fileText) == known)
        #expect(DeviceTokens(fileText: "junk\n" + tokens[1].uppercased() + "\n\n" + tokens[1] + "\n").tokens == [tokens[1]])
        #expect(!known.contains(nil) && !known.contains(""))
    }

    @Test func theDeviceCookieIsHttpOnlyStrictFor400DaysAndSecureUnderTLS() {
        let plain = Access(pin: "1234", tls: false).deviceCookie("abc").description
        #expect(plain.hasPrefix("rc_device=abc") && plain.contains("Max-Age=34560000") && plain.contains("HttpOnly")
            && plain.contains("SameSite=Strict") && plain.contains("Path=/") && !plain.contains("Secure"))
        #expect(Access(pin: "1234", tls: true).deviceCookie("abc").description.contains("Secure"))
    }

    @Test func knownPhonesAreKeptInTheStateDirectoryMode0600() async throws {
        let directory = NSTemporaryDirectory() + "rc-devices-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let captured = ClockLinkTests.Captured()
        let file = DeviceFile(stateDirectory: directory, logger: captured.logger)
        #expect(file.load().tokens.isEmpty, "no file yet")
        let access = Access(pin: "4829130571", tls: false, devices: file.load(), deviceFile: file)
        var phones: [String] = []
        for _ in 0..<3 {
            if case .session(_, let device) = access.login(pin: "4829130571", client: "10.0.0.7", now: start) { phones.append(device) }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while file.load().tokens != phones, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == phones.map { $0 + "\n" }.joined())
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // After a restart the phones are still known.
        let restarted = Access(pin: "4829130571", tls: false, devices: file.load(), deviceFile: file)
        #expect(restarted.attemptKey(client: "10.0.0.7", device: phones[1]) == DeviceTokens.key(phones[1]))
        #expect(captured.lines.withLockedValue { $0 }.isEmpty)
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

/// Sessions that end before their time are announced, so their WebSockets close.
@Suite struct SessionEndTests {
    final class Ended: Sendable {
        let tokens = NIOLockedValueBox<[String]>([])
    }

    @Test func theSessionDroppedForTheSixtyFifthIsAnnounced() {
        let ended = Ended()
        let access = Access(pin: "4829130571", tls: false, sessionEnded: { token in ended.tokens.withLockedValue { $0.append(token) } })
        let start = ContinuousClock.now
        var tokens: [String] = []
        for i in 0...SessionStore.capacity {
            if case .session(let token, _) = access.login(pin: "4829130571", client: "192.0.2.\(i % 200)", now: start) {
                tokens.append(token)
            }
        }
        #expect(tokens.count == SessionStore.capacity + 1)
        #expect(ended.tokens.withLockedValue { $0 } == [tokens[0]], "only the oldest, once")
    }
}
