@testable import ConnectionAdmission
@testable import GatewayAccess
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOTLS
import Testing

/// The connection table's caps and the guard's timeouts and headers, on embedded channels
/// and an embedded event loop's virtual time.
@Suite struct ConnectionBoundsTests {
    static let bounds = ConnectionBounds(perAddress: 3, total: 5, handshakeTimeout: .seconds(10), headTimeout: .seconds(10))

    func channel(_ ip: String, loop: EmbeddedEventLoop = EmbeddedEventLoop()) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        let address = try SocketAddress(ipAddress: ip, port: 40000)
        channel.remoteAddress = address
        try channel.connect(to: address).wait()
        return channel
    }

    @Test func aClientOverItsCapClosesItsOwnIdlest() throws {
        let table = ConnectionTable(bounds: Self.bounds)
        let mine = try (0..<3).map { _ in try channel("192.0.2.7") }
        #expect(mine.allSatisfy { table.admit($0) != nil })
        #expect(table.admit(try channel("192.0.2.7")) != nil)
        #expect(!mine[0].isActive && mine[1].isActive && mine[2].isActive, "its oldest silent one made room")
        #expect(table.admit(try channel("192.0.2.8")) != nil, "another client is not affected")
        #expect(table.count(from: AddressKey(mine[0].remoteAddress)) == 3)
        let counts = table.takeCounts()
        #expect(counts.closedForSameClient == 1 && counts.busiestClient == "192.0.2.7")
        #expect(counts.endedBeforeRequest == 1, "it never sent a request")
        #expect(table.takeCounts().isEmpty, "counts start again after each report")
    }

    @Test func oneIpv6Slash64IsOneClient() throws {
        let table = ConnectionTable(bounds: Self.bounds)
        let six = try ["fd00::bad", "fd00::bad:1", "fd00::c0c4", "fd00::1:2"].map { try channel($0) }
        #expect(six.allSatisfy { table.admit($0) != nil })
        #expect(table.count(from: AddressKey.network(six[0].remoteAddress)) == 3)
        #expect(!six[0].isActive, "four addresses of one /64 share its three places")
    }

    @Test func aClosedConnectionGivesItsPlaceBack() throws {
        let table = ConnectionTable(bounds: Self.bounds)
        let mine = try (0..<3).map { _ in try channel("192.0.2.7") }
        for c in mine { _ = table.admit(c) }
        _ = try mine[0].close().wait()
        mine[0].embeddedEventLoop.run()
        #expect(table.count(from: AddressKey(mine[0].remoteAddress)) == 2)
        #expect(table.admit(try channel("192.0.2.7")) != nil)
        #expect(mine[1].isActive && mine[2].isActive)
    }

    @Test func whenFullTheBusiestClientsIdlestMakesRoom() throws {
        let table = ConnectionTable(bounds: Self.bounds)
        let busy = try (0..<3).map { _ in try channel("192.0.2.1") }
        let other = try (0..<2).map { _ in try channel("192.0.2.2") }
        let serials = (busy + other).map { table.admit($0) }
        // The first has been answered, the second has a request in flight, the third is silent
        // since before the first's answer.
        #expect(table.head(serials[0]!, .other) && table.answered(serials[0]!))
        #expect(table.head(serials[1]!, .other))
        let coach = try channel("192.0.2.99")
        #expect(table.admit(coach) != nil)
        #expect(!busy[2].isActive, "of the client with the most, the one idle longest")
        #expect(busy[0].isActive && busy[1].isActive && other.allSatisfy { $0.isActive })
        #expect(table.count() == 5)
        #expect(table.takeCounts().closedForRoom == 1)
    }

    @Test func whenFullOfPhonesANewcomerIsOnTrialUntilItsAnswer() throws {
        let table = ConnectionTable(bounds: Self.bounds)
        for n in 1...5 {
            let serial = table.admit(try channel("192.0.2.\(n)"))
            #expect(table.head(serial!, .phone))
        }
        let stranger = try channel("192.0.2.99")
        let serial = try #require(table.admit(stranger))
        #expect(table.count() == 6)
        #expect(table.head(serial, .other), "it is answered")
        #expect(!table.answered(serial), "then closed")
        #expect(table.takeCounts().closedOverTotal == 1)
    }

    // MARK: TV pages without a session

    static let viewerBounds = ConnectionBounds(perAddress: 3, total: 6, handshakeTimeout: .seconds(10), headTimeout: .seconds(10),
                                               viewersPerAddress: 2, viewers: 3)

    /// A connection past its head that asked for a viewer's place.
    func viewer(_ ip: String, in table: ConnectionTable) throws -> (EmbeddedChannel, Bool) {
        let c = try channel(ip)
        let serial = try #require(table.admit(c))
        #expect(table.head(serial, .other))
        return (c, table.becomeViewer(c))
    }

    @Test func viewersHaveASmallCapPerAddressAndInAll() throws {
        let table = ConnectionTable(bounds: Self.viewerBounds)
        let (_, first) = try viewer("192.0.2.1", in: table)
        let (_, second) = try viewer("192.0.2.1", in: table)
        let (_, third) = try viewer("192.0.2.1", in: table)
        #expect(first && second && !third, "two viewers from one address")
        let (_, other) = try viewer("192.0.2.2", in: table)
        let (_, overAll) = try viewer("192.0.2.3", in: table)
        #expect(other && !overAll, "three viewers in all")
        #expect(table.viewerCount == 3)
        #expect(table.takeCounts().refusedViewers == 2)
    }

    @Test func aClosedViewerGivesItsViewerPlaceBack() throws {
        let table = ConnectionTable(bounds: Self.viewerBounds)
        let (c, _) = try viewer("192.0.2.1", in: table)
        _ = try viewer("192.0.2.1", in: table)
        _ = try c.close().wait()
        c.embeddedEventLoop.run()
        #expect(table.viewerCount == 1)
        #expect(try viewer("192.0.2.1", in: table).1)
    }

    /// A table full of viewers (the oldest first) and phones.
    func fullTable(viewers: Int) throws -> (ConnectionTable, [EmbeddedChannel]) {
        let table = ConnectionTable(bounds: ConnectionBounds(perAddress: 3, total: 5, handshakeTimeout: .seconds(10),
                                                             headTimeout: .seconds(10), viewersPerAddress: 3, viewers: 5))
        var channels: [EmbeddedChannel] = []
        for n in 1...5 {
            if n <= viewers {
                let (c, isViewer) = try viewer("192.0.2.\(n)", in: table)
                #expect(isViewer)
                channels.append(c)
            } else {
                let c = try channel("192.0.2.\(n)")
                #expect(table.head(try #require(table.admit(c)), .phone))
                channels.append(c)
            }
        }
        #expect(table.count() == 5 && table.viewerCount == viewers)
        return (table, channels)
    }

    @Test func aPhoneAlwaysFindsAPlaceTheOldestViewerMakesRoom() throws {
        let (table, all) = try fullTable(viewers: 5)
        let coach = try channel("192.0.2.99")
        let serial = try #require(table.admit(coach), "a place on trial while viewers hold places")
        #expect(table.head(serial, .phone))
        #expect(!all[0].isActive, "the oldest viewer was closed")
        #expect(all.dropFirst().allSatisfy { $0.isActive })
        #expect(table.count() == 5 && table.viewerCount == 4)
        #expect(table.takeCounts().viewersClosed == 1)
    }

    @Test func aLoginThatFailsClosesNoViewerOneThatSucceedsDoes() throws {
        let (table, all) = try fullTable(viewers: 2)
        let stranger = try channel("192.0.2.98")
        let serial = try #require(table.admit(stranger))
        #expect(table.head(serial, .login), "the login is answered")
        #expect(!table.answered(serial), "its 401 sent, the connection closes")
        #expect(all.allSatisfy { $0.isActive })
        #expect(table.count() == 5 && table.viewerCount == 2)
        let coach = try channel("192.0.2.97")
        let coachSerial = try #require(table.admit(coach))
        #expect(table.head(coachSerial, .login))
        table.loggedIn(coach)
        #expect(!all[0].isActive && all.dropFirst().allSatisfy { $0.isActive }, "its login took the oldest viewer's place")
        #expect(table.answered(coachSerial) && table.count() == 5 && table.viewerCount == 1)
    }

    @Test func aPhoneIsASessionOrAKnownPhoneAndALoginIsALogin() throws {
        let access = Access(pin: "4829130571", tls: false)
        guard case .session(let token, let device) = access.login(pin: "4829130571", client: "192.0.2.1") else {
            Issue.record("no session"); return
        }
        func head(_ method: HTTPMethod, _ uri: String, cookie: String? = nil) -> HTTPRequestHead {
            HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: HTTPHeaders(cookie.map { [("Cookie", $0)] } ?? []))
        }
        #expect(access.admissionHead(head(.POST, "/api/login")) == .login)
        #expect(access.admissionHead(head(.GET, "/api/state", cookie: "a=b; rc_session=\(token)")) == .phone)
        #expect(access.admissionHead(head(.GET, "/api/display", cookie: "rc_session=\(token)")) == .phone)
        #expect(access.admissionHead(head(.GET, "/", cookie: "rc_device=\(device)")) == .phone, "a known phone whose session ended")
        #expect(access.admissionHead(head(.GET, "/api/display")) == .other)
        #expect(access.admissionHead(head(.GET, "/api/login")) == .other)
        #expect(access.admissionHead(head(.GET, "/", cookie: "rc_session=\(String(repeating: "0", count: 64))")) == .other)
        #expect(access.admissionHead(head(.GET, "/", cookie: "rc_device=\(String(repeating: "0", count: 64))")) == .other)
    }

    // MARK: the guard

    func guarded(tls: Bool = false) throws -> (EmbeddedChannel, EmbeddedEventLoop, ConnectionTable) {
        let loop = EmbeddedEventLoop()
        let channel = try channel("192.0.2.7", loop: loop)
        let table = ConnectionTable(bounds: Self.bounds)
        let serial = try #require(table.admit(channel))
        try channel.pipeline.syncOperations.addHandler(HTTPGuard(bounds: Self.bounds, tls: tls, table: table, serial: serial))
        return (channel, loop, table)
    }

    func head() -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"))
    }

    @Test func hummingbirdHearsOfAConnectionOnlyWhenAWholeHeadArrived() throws {
        for sendsHead in [true, false] {
            let loop = EmbeddedEventLoop()
            let channel = try channel("192.0.2.7", loop: loop)
            let table = ConnectionTable(bounds: Self.bounds)
            let firstHead = loop.makePromise(of: Bool.self)
            try channel.pipeline.syncOperations.addHandler(HTTPGuard(bounds: Self.bounds, tls: false, table: table,
                                                                     serial: try #require(table.admit(channel)),
                                                                     firstHead: firstHead))
            if sendsHead { try channel.writeInbound(head()) }
            _ = try channel.close().wait()
            loop.run()
            #expect(try firstHead.futureResult.wait() == sendsHead)
            #expect(table.takeCounts().endedBeforeRequest == (sendsHead ? 0 : 1))
        }
    }

    @Test func aFirstRequestThatCannotBeParsedIsClosedUnanswered() throws {
        let (channel, _, _) = try guarded()
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidMethod)
        #expect(!channel.isActive)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }

    @Test func overThePlacesAStrangerIsClosedAfterItsAnswer() throws {
        let loop = EmbeddedEventLoop()
        let table = ConnectionTable(bounds: ConnectionBounds(perAddress: 3, total: 1, handshakeTimeout: .seconds(10),
                                                             headTimeout: .seconds(10)))
        let phone = try channel("192.0.2.1", loop: loop)
        #expect(table.head(try #require(table.admit(phone)), .phone))
        let stranger = try channel("192.0.2.2", loop: loop)
        try stranger.pipeline.syncOperations.addHandler(HTTPGuard(bounds: table.bounds, tls: false, table: table,
                                                                  serial: try #require(table.admit(stranger))))
        try stranger.writeInbound(head())
        try stranger.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        #expect(stranger.isActive)
        try stranger.writeOutbound(HTTPServerResponsePart.end(nil))
        loop.run()
        #expect(!stranger.isActive && phone.isActive)
        #expect(try stranger.readOutbound(as: HTTPServerResponsePart.self) != nil, "the answer went out first")
    }

    @Test func noRequestHeadInTenSecondsClosesTheConnection() throws {
        let (channel, loop, table) = try guarded()
        loop.advanceTime(by: .milliseconds(9_999))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(table.takeCounts().timedOut == 1)
    }

    @Test func aRequestHeadInTimeKeepsTheConnection() throws {
        let (channel, loop, _) = try guarded()
        loop.advanceTime(by: .seconds(9))
        try channel.writeInbound(head())
        loop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
    }

    @Test func underTLSTheHandshakeHasItsOwnTimeoutThenTheHeadItsOwn() throws {
        let (channel, loop, _) = try guarded(tls: true)
        loop.advanceTime(by: .seconds(8))
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil))
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive, "the head's 10 s start at the handshake's end")
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)

        let (stalled, stalledLoop, _) = try guarded(tls: true)
        stalledLoop.advanceTime(by: .seconds(10))
        #expect(!stalled.isActive, "a handshake that never finishes")
    }

    func answer(_ status: HTTPResponseStatus, on channel: EmbeddedChannel) throws -> HTTPResponseHead? {
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status)))
        guard case .head(let head)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else { return nil }
        return head
    }

    @Test func underTLSEveryAnswerAsksForHTTPSOnly() throws {
        let (channel, _, _) = try guarded(tls: true)
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil))
        try channel.writeInbound(head())
        #expect(try answer(.ok, on: channel)?.headers["Strict-Transport-Security"] == ["max-age=31536000"])
        #expect(try answer(.notFound, on: channel)?.headers["Strict-Transport-Security"] == ["max-age=31536000"])
        let (plain, _, _) = try guarded()
        try plain.writeInbound(head())
        #expect(try answer(.ok, on: plain)?.headers["Strict-Transport-Security"] == [], "plain HTTP cannot ask for it")
    }

    @Test func timeoutAndTooLargeAnswersAreNotStored() throws {
        let (channel, _, _) = try guarded()
        try channel.writeInbound(head())
        #expect(try answer(.requestTimeout, on: channel)?.headers["Cache-Control"] == ["no-store"])
        #expect(try answer(.payloadTooLarge, on: channel)?.headers["Cache-Control"] == ["no-store"])
    }

    @Test func aConnectionThatLeavesWhatItIsSentUnreadIsClosed() throws {
        let (channel, loop, table) = try guarded()
        try channel.writeInbound(head())
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(9))
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(60))
        #expect(channel.isActive, "it read in time")
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .milliseconds(9_999))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(table.takeCounts().stalled == 1)
    }

    @Test func everyAnswerGetsTheSecurityHeadersButTheUpgrade() throws {
        let (channel, _, _) = try guarded()
        try channel.writeInbound(head())
        _ = try channel.readInbound(as: HTTPServerRequestPart.self)
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .notFound)))
        guard case .head(let notFound)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("no answer")
            return
        }
        for (name, value) in SecurityHeaders.fields { #expect(notFound.headers[name] == [value]) }

        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .switchingProtocols)))
        guard case .head(let upgrade)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("no 101")
            return
        }
        #expect(upgrade.headers["Content-Security-Policy"].isEmpty)
        // WebSocket bytes pass both ways untouched after the 101.
        try channel.writeOutbound(ByteBuffer(string: "frame"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "frame"))
        try channel.writeInbound(ByteBuffer(string: "frame"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "frame"))
    }
}
