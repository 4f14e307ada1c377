import Testing
@testable import RemoteGateway

/// The fan-out to the pages: a page that reads nothing keeps only the newest lines and never
/// holds up the publisher or the other pages.
@Suite struct LiveHubTests {
    @Test func aNewPageStartsWithTheLatestLine() async {
        let hub = LiveHub()
        hub.publish("a")
        hub.publish("b")
        var lines = hub.subscribe().makeAsyncIterator()
        #expect(await lines.next() == "b")
        hub.publish("c")
        #expect(await lines.next() == "c")
    }

    @Test func aStalledPageKeepsOnlyTheNewestLinesAndOthersGetEverything() async {
        let hub = LiveHub()
        let stalled = hub.subscribe()
        var reader = hub.subscribe().makeAsyncIterator()
        for n in 0..<1000 {
            hub.publish("\(n)")
            #expect(await reader.next() == "\(n)")
        }
        var kept: [String] = []
        var iterator = stalled.makeAsyncIterator()
        for _ in 0..<LiveHub.bufferedLines { if let line = await iterator.next() { kept.append(line) } }
        #expect(kept == (1000 - LiveHub.bufferedLines..<1000).map { "\($0)" })
    }

    @Test func aPageThatGoesAwayIsDropped() async {
        let hub = LiveHub()
        let task = Task {
            for await _ in hub.subscribe() {}
        }
        while hub.subscriberCount == 0 { await Task.yield() }
        task.cancel()
        await task.value
        #expect(hub.subscriberCount == 0)
    }
}
