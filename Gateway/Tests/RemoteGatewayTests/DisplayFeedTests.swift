@testable import ClockLink
import ControlProtocol
#if canImport(Glibc)
import Glibc
#endif
import JSON
@testable import RemoteGateway
import RoundClockCore
import Testing
import TestSupport

/// The TV page's feed: a message on connect and on each change of what the page counts from,
/// none for the clock's per-second lines; the plan it computes from; the pings it may send.
@Suite struct DisplayFeedTests {
    static let second: Int64 = 1_000_000_000
    static let anchor: Int64 = 1_795_791_600 * second

    static func feed(offset: Int = 3600) -> DisplayFeed {
        DisplayFeed(utcOffset: { _ in offset })
    }

    static func parse(_ message: String?) throws -> JSONValue {
        try JSONParser(maxBytes: 1 << 20).parse(try #require(message))
    }

    @Test func aRunningRoundSendsOneMessageNotOneASecond() throws {
        var feed = Self.feed()
        var messages: [String] = []
        for second in 0..<400 {
            let line = ClockLines.running(Presets.boxing, anchor: Self.anchor, atSecond: second).line
            if let message = feed.message(after: line, realtimeNow: Self.anchor + Int64(second) * Self.second) { messages.append(message) }
        }
        #expect(messages.count == 1, "400 seconds of one running session: \(messages.count) messages")
        let first = try Self.parse(messages.first)
        #expect(first["display"] == .string("session") && first["state"] == .string("running"))
        #expect(first["utc_offset_s"]?.int == 3600)
        #expect(first["session"]?["anchor_realtime_ns"] == .int(Self.anchor))
        #expect(first["session"]?["adopted"] == nil, "the page needs no adopt token")
    }

    @Test func eachSessionChangeFinishAndTimeZoneChangeSendsOne() throws {
        var feed = Self.feed()
        let running = ClockLines.running(Presets.boxing, anchor: Self.anchor, atSecond: 12)
        #expect(feed.message(after: running.line, realtimeNow: Self.anchor) != nil)
        var resumed = running
        resumed.session?.elapsedBeforeNanoseconds = 5 * Self.second
        resumed.session?.anchorRealtimeNanoseconds = Self.anchor + 20 * Self.second
        #expect(feed.message(after: resumed.line, realtimeNow: Self.anchor) != nil, "a re-anchor (adjust, skip, resume)")
        var paused = resumed
        paused.state = "paused"
        paused.session?.run = .paused
        paused.session?.anchorRealtimeNanoseconds = nil
        #expect(feed.message(after: paused.line, realtimeNow: Self.anchor) != nil)
        #expect(feed.message(after: paused.line, realtimeNow: Self.anchor) == nil, "the same line again")
        paused.panels = [.init(role: "time", text: " 2:41")]
        #expect(feed.message(after: paused.line, realtimeNow: Self.anchor) != nil, "a paused panel is sent as it is")
        var finished = ClockLines.running(Presets.tabata, anchor: Self.anchor, atSecond: 249)
        #expect(feed.message(after: finished.line, realtimeNow: Self.anchor) != nil)
        finished = ClockLines.running(Presets.tabata, anchor: Self.anchor, atSecond: 250)
        #expect(finished.state == "finished")
        #expect(feed.message(after: finished.line, realtimeNow: Self.anchor) != nil, "the finish")
        var dst = DisplayFeed(utcOffset: { $0 > Self.anchor ? 7200 : 3600 })
        #expect(dst.message(after: ClockLines.clock(time: "15:00").line, realtimeNow: Self.anchor) != nil)
        #expect(dst.message(after: ClockLines.clock(time: "1500").line, realtimeNow: Self.anchor) == nil, "the colon's blink")
        #expect(dst.message(after: ClockLines.clock(time: "15:01").line, realtimeNow: Self.anchor) == nil, "a minute")
        #expect(dst.message(after: ClockLines.clock(time: "16:01").line, realtimeNow: Self.anchor + 1) != nil, "summer time")
    }

    @Test func theClockGoingAwayIsOneMessage() {
        var feed = Self.feed()
        #expect(feed.message(after: ClockLink.unreachableLine, realtimeNow: 0) == DisplayFeed.unreachableMessage)
        #expect(feed.message(after: ClockLink.unreachableLine, realtimeNow: 0) == nil)
        #expect(feed.message(after: ClockLines.ready(Presets.boxing).line, realtimeNow: 0) != nil)
    }

    @Test func thePlanHasEveryPhaseWithItsPanelsAndSignals() throws {
        var feed = Self.feed()
        let message = try Self.parse(feed.message(after: ClockLines.ready(Presets.boxing).line, realtimeNow: 0))
        let plan = try #require(message["plan"])
        guard case .array(let phases)? = plan["phases"] else { Issue.record("no phases"); return }
        #expect(phases.count == Presets.boxing.phases.count)
        #expect(phases[0]["phase"] == .string("PREP") && phases[0]["round"] == .string("--.12"))
        #expect(phases[1]["phase"] == .string("WORK") && phases[1]["round"] == .string(" 1.12"))
        #expect(phases[1]["start_ns"] == .int(10 * Self.second) && phases[1]["length_ns"] == .int(180 * Self.second))
        #expect(phases[1]["counting"] == .string("down"))
        #expect(phases[2]["phase"] == .string("REST") && phases[2]["warn_ns"] == .null)
        #expect(plan["total_ns"] == .int(Presets.boxing.total!.wholeNanoseconds))
        guard case .array(let signals)? = plan["signals"] else { Issue.record("no signals"); return }
        #expect(signals.count == Presets.boxing.signals.count)
        #expect(signals.contains(.array([.int(10 * Self.second), .string("start")])))
        let warning = Presets.boxing.warning.map { 190 * Self.second - $0.wholeNanoseconds }
        if let warning { #expect(phases[1]["warn_ns"] == .int(190 * Self.second - warning)) }
        let stopwatch = DisplayPlan.json(Presets.stopwatch, cadence: .seconds)
        #expect(stopwatch["total_ns"] == .null)
        #expect(DisplayPlan.json(.wallClock, cadence: .seconds)["kind"] == .string("clock"))
    }

    @Test func aProgramTheClockDoesNotDefineHasNoPlan() throws {
        var feed = DisplayFeed(utcOffset: { _ in 0 })
        let message = try Self.parse(feed.message(after: ClockLines.ready(Presets.boxing, defined: false).line, realtimeNow: 0))
        #expect(message["plan"] == .null)
        #expect(message["panels"] != nil)
    }

    @Test func aRunningProgramWithoutAPlanIsMirroredPanelByPanel() throws {
        var feed = DisplayFeed(utcOffset: { _ in 0 })
        var times: [String] = []
        for second in 0..<5 {
            let line = ClockLines.running(Presets.boxing, anchor: Self.anchor, atSecond: second, defined: false).line
            guard let message = feed.message(after: line, realtimeNow: Self.anchor + Int64(second) * Self.second) else { continue }
            times.append(try Self.parse(message)["panels"]?["time"]?.string ?? "")
        }
        #expect(times.count == 5 && Set(times).count == 5, "one message for each second the panel shows: \(times)")
    }

    @Test func theClocksSavedProgramIsCountedNotTheGatewaysOfTheSameName() throws {
        var feed = SavedProgramX.gatewayFeed()
        var messages: [String] = []
        for second in 0..<20 {
            let line = SavedProgramX.running(anchor: Self.anchor, atSecond: second)
            if let message = feed.message(after: line, realtimeNow: Self.anchor + Int64(second) * Self.second) { messages.append(message) }
        }
        #expect(messages.count == 1, "the page counts by itself: \(messages)")
        let plan = try #require(try Self.parse(messages.first)["plan"])
        #expect(plan["total_ns"] == .int(25 * Self.second), "the clock's x: 0:05 + 2 × (0:07 + 0:03)")
        guard case .array(let phases)? = plan["phases"] else { Issue.record("no phases: \(plan)"); return }
        #expect(phases.map { $0["phase"]?.string ?? "" } == ["PREP", "JUMP", "BRTH", "JUMP", "BRTH"])
        #expect(phases[1]["start_ns"] == .int(5 * Self.second) && phases[1]["length_ns"] == .int(7 * Self.second))
        #expect(plan["signals"].map { signals in
            if case .array(let list) = signals { list.contains(.array([.int(8_500_000_000), .string("halfway")])) } else { false }
        } == true, "JUMP's halfway signal")

        // The editor saves over `x` (JUMP 0:09) after a reset: the next line brings it, and the plan with it.
        let ready = ClockLines.ready(SavedProgramX.clocks(jump: 9), defined: false)
        let saved = try Self.parse(feed.message(after: SavedProgramX.line(ready, definition: SavedProgramX.definition(jump: 9)),
                                                realtimeNow: Self.anchor + 30 * Self.second))
        #expect(saved["plan"]?["total_ns"] == .int(29 * Self.second))
        #expect(feed.message(after: ready.line, realtimeNow: Self.anchor + 31 * Self.second) == nil, "the same program again")
    }

    @Test func theClockGoingAwayForgetsItsProgram() throws {
        var feed = SavedProgramX.gatewayFeed()
        #expect(feed.message(after: SavedProgramX.running(anchor: Self.anchor, atSecond: 0), realtimeNow: Self.anchor) != nil)
        #expect(feed.message(after: ClockLink.unreachableLine, realtimeNow: Self.anchor) == DisplayFeed.unreachableMessage)
        // Back as an older clock, without a definition: mirrored, not planned from a name.
        let older = try Self.parse(feed.message(after: SavedProgramX.running(anchor: Self.anchor, atSecond: 1),
                                                realtimeNow: Self.anchor + Self.second))
        #expect(older["plan"] == .null && older["panels"]?["time"] != nil)
    }

    @Test func pingsAreAnsweredWithTheGatewaysTime() throws {
        var ping = DisplayPing()
        let answer = try ping.answer(#"{"ping": 7}"#, now: .now) { 1_795_791_600_123_456 }
        #expect(answer == #"{"pong": 7, "server_us": 1795791600123456}"#)
    }

    @Test(arguments: [
        "", "{}", "ping", #"{"ping": -1}"#, #"{"ping": 1000000000}"#, #"{"ping": 1.5}"#, #"{"ping": "1"}"#,
        #"{"ping": 1, "x": 2}"#, #"{"pong": 1}"#, #"[1]"#, #"{"ping": 1"#, String(repeating: " ", count: 65),
    ])
    func badMessagesAreRefusedInOneLine(_ text: String) {
        var ping = DisplayPing()
        do {
            _ = try ping.answer(text, now: .now) { 0 }
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(!error.description.contains("\n"))
            #expect(error == .notAPing || error == .tooLong(bytes: text.utf8.count))
        }
    }

    @Test func pingsBeyondTheBudgetAreRefused() throws {
        var ping = DisplayPing()
        let start = ContinuousClock.now
        for _ in 0..<DisplayPing.burst { _ = try ping.answer(#"{"ping": 1}"#, now: start) { 0 } }
        #expect(throws: DisplayPing.Refusal.tooFast) { try ping.answer(#"{"ping": 1}"#, now: start) { 0 } }
        _ = try ping.answer(#"{"ping": 1}"#, now: start + DisplayPing.refill) { 0 }
        #expect(throws: DisplayPing.Refusal.tooFast) { try ping.answer(#"{"ping": 1}"#, now: start + DisplayPing.refill) { 0 } }
    }

    /// Random messages over the pieces that matter: each is answered as a ping exactly when it
    /// is one, else refused in one line; never a crash.
    @Test func generatedMessagesArePingsOrRefusedInOneLine() {
        let seed = getenv("ROUNDCLOCK_SEED").flatMap { UInt64(String(cString: $0)) } ?? UInt64.random(in: 0...UInt64.max)
        print("DisplayFeedTests ping corpus seed \(seed) (replay: ROUNDCLOCK_SEED=\(seed) swift test --filter DisplayFeedTests)")
        var random = SplitMix64(seed: seed)
        let pieces = ["{", "}", "\"ping\"", "\"pong\"", ":", " ", ",", "1", "0", "-", "9999999999", ".5", "e3", "[", "]", "null",
                      "\"", "\\u0000", "é", "\n", "true"]
        for _ in 0..<5000 {
            var ping = DisplayPing()
            let text = (0..<Int(random.next() % 9)).map { _ in random.pick(pieces) }.joined()
            do {
                let answer = try ping.answer(text, now: .now) { 42 }
                #expect(answer.hasPrefix(#"{"pong": "#) && answer.hasSuffix(#", "server_us": 42}"#), "seed \(seed): \(text.debugDescription)")
            } catch {
                #expect(!error.description.contains("\n"), "seed \(seed): \(text.debugDescription)")
            }
        }
    }
}
