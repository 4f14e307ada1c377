@testable import ClockLink
import ControlProtocol
import RoundClockCore
import Testing

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

    @Test func aLateSubscriberGetsTheRunningProgramWithTheLatestLine() async throws {
        let hub = LiveHub()
        let later = ClockLines.running(Presets.boxing, anchor: 0, atSecond: 4, defined: false)
        hub.publish(ClockLines.running(Presets.boxing, anchor: 0, atSecond: 3).line)
        hub.publish(later.line)
        var lines = hub.subscribe().makeAsyncIterator()
        var first = try #require(await lines.next().flatMap(ControlState.parse))
        #expect(first.definition == Presets.boxing)
        first.definition = nil
        #expect(first == later)
        let tabata = ClockLines.running(Presets.tabata, anchor: 0, atSecond: 4, defined: false).line
        hub.publish(tabata)
        var another = hub.subscribe().makeAsyncIterator()
        #expect(await another.next() == tabata, "another program: the line as it came")
        hub.publish(ClockLink.unreachableLine)
        hub.publish(later.line)
        var afterOutage = hub.subscribe().makeAsyncIterator()
        #expect(await afterOutage.next() == later.line, "the clock away: its definition is forgotten")
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
