import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOTLS
import Testing
@testable import RemoteGateway

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

    @Test func aClientGetsItsCapAndTheNextIsRefused() throws {
        let table = ConnectionTable(bounds: Self.bounds)
        let mine = try (0..<3).map { _ in try channel("192.0.2.7") }
        #expect(mine.allSatisfy { table.admit($0) != nil })
        #expect(table.admit(try channel("192.0.2.7")) == nil)
        #expect(table.admit(try channel("192.0.2.8")) != nil, "another client is not affected")
        // One IPv6 /64 is one client.
        let six = try (1...3).map { try channel("2001:db8:0:1::\($0)") }
        #expect(six.prefix(2).allSatisfy { table.admit($0) != nil })
        #expect(table.count(from: AddressKey(six[0].remoteAddress)) == 2)
        let counts = table.takeCounts()
        #expect(counts.refusedPerAddress == 1 && counts.busiestRefused == "192.0.2.7")
        #expect(table.takeCounts().isEmpty, "counts start again after each report")
    }

    @Test func aClosedConnectionGivesItsPlaceBack() throws {
        let table = ConnectionTable(bounds: Self.bounds)
        let mine = try (0..<3).map { _ in try channel("192.0.2.7") }
        for c in mine { _ = table.admit(c) }
        _ = try mine[0].close().wait()
        mine[0].embeddedEventLoop.run()
        #expect(table.count(from: AddressKey(mine[0].remoteAddress)) == 2)
        #expect(table.admit(try channel("192.0.2.7")) != nil)
    }

    @Test func whenFullTheOldestConnectionWithoutARequestMakesRoom() throws {
        let table = ConnectionTable(bounds: Self.bounds)
        let all = try (1...5).map { try channel("192.0.2.\($0)") }
        let serials = all.map { table.admit($0) }
        // The first two have sent their request heads; the third is the oldest still silent.
        table.headArrived(serials[0]!)
        table.headArrived(serials[1]!)
        let coach = try channel("192.0.2.99")
        #expect(table.admit(coach) != nil)
        #expect(!all[2].isActive, "the oldest silent connection was closed")
        #expect(all[0].isActive && all[1].isActive && all[3].isActive && all[4].isActive)
        #expect(table.count() == 5)
        #expect(table.takeCounts().evicted == 1)
    }

    @Test func whenFullOfRequestsTheNewConnectionIsRefused() throws {
        let table = ConnectionTable(bounds: Self.bounds)
        for n in 1...5 {
            let serial = table.admit(try channel("192.0.2.\(n)"))
            table.headArrived(serial!)
        }
        #expect(table.admit(try channel("192.0.2.99")) == nil)
        #expect(table.takeCounts().refusedFull == 1)
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
