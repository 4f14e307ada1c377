import ControlProtocol
import Foundation
import JSON
import Testing
import TestSupport

/// The session in the wire contract (docs/control-protocol.md "The session"): the `session`
/// member of state lines and the `adopt` command.
@Suite struct SessionShareTests {
    static let running = SessionShare(program: "boxing", run: .running, elapsedBeforeNanoseconds: 0,
                                      anchorRealtimeNanoseconds: 1_795_412_345_678_901_234, adopted: 7)

    @Test func stateLinesCarryTheSessionAndReadBack() throws {
        let state = ControlState(state: "running", phase: "work", round: 1, rounds: 12, program: "boxing", brightness: 15,
                                 panels: [.init(role: "time", text: " 2:58")], session: Self.running)
        #expect(state.line == #"{"state": "running", "phase": "work", "round": 1, "rounds": 12, "program": "boxing", "brightness": 15, "panels": {"time": " 2:58"}, "session": {"program": "boxing", "run": "running", "elapsed_before_ns": 0, "anchor_realtime_ns": 1795412345678901234, "adopted": 7}}"#)
        #expect(ControlState.parse(state.line) == state)
        let paused = SessionShare(program: "10 x 0:45/0:15", run: .paused, elapsedBeforeNanoseconds: 61_500_000_000)
        #expect(paused.line == #"{"program": "10 x 0:45/0:15", "run": "paused", "elapsed_before_ns": 61500000000, "anchor_realtime_ns": null, "adopted": null}"#)
        #expect(try SessionShare.parse(line: paused.line) == paused)
        #expect(try SessionShare.parse(line: Self.running.line) == Self.running)
        // A state line with a malformed session is no state line.
        #expect(ControlState.parse(state.line.replacingOccurrences(of: #""run": "running""#, with: #""run": "finished""#)) == nil)
        // Members a newer clock may add, on the line or in its session, are ignored.
        let newer = state.line.replacingOccurrences(of: #""adopted": 7}"#, with: #""adopted": 7, "set": {"n": 2}}, "protocol": 1"#)
        #expect(newer != state.line && ControlState.parse(newer) == state)
    }

    @Test func adoptReadsBackAndEncodesWithoutAdopted() throws {
        let line = #"{"command": "adopt", "token": 7, "session": {"program": "boxing", "run": "running", "elapsed_before_ns": 0, "anchor_realtime_ns": 1795412345678901234}}"#
        var share = Self.running
        share.adopted = nil
        let request = ControlRequest.adopt(token: 7, session: share)
        #expect(try ControlRequest.parse(line) == request)
        #expect(request.line == line)
        #expect(try ControlRequest.parse(request.line) == request)
        let ready = ControlRequest.adopt(token: Int64.max, session: SessionShare(program: "clock", run: .ready, elapsedBeforeNanoseconds: 0))
        #expect(try ControlRequest.parse(ready.line) == ready)
        let longest = SessionShare(program: "stopwatch", run: .paused, elapsedBeforeNanoseconds: SessionShare.maximumElapsedNanoseconds)
        #expect(try ControlRequest.parse(ControlRequest.adopt(token: 0, session: longest).line) == .adopt(token: 0, session: longest))
    }

    @Test func refusesBadAdoptsWithOneLineSayingWhy() {
        func adopt(_ session: String, token: String = "1") -> String { #"{"command": "adopt", "token": \#(token), "session": \#(session)}"# }
        let cases: [(String, String)] = [
            (#"{"command": "adopt", "session": {}}"#, #""adopt" needs a "token": a whole number from 0 to 9223372036854775807"#),
            (#"{"command": "adopt", "token": 1}"#, #""adopt" needs a "session" object"#),
            (adopt("{}", token: "-1"), #""token" must be a whole number from 0 to 9223372036854775807"#),
            (adopt("{}", token: "1.5"), #""token" must be a whole number from 0 to 9223372036854775807"#),
            (adopt("[]"), #""session" must be an object"#),
            (adopt(#"{"run": "ready", "elapsed_before_ns": 0}"#), #""session" needs "program""#),
            (adopt(#"{"program": "boxing", "run": "done", "elapsed_before_ns": 0}"#), #""session"."run" must be "ready", "running" or "paused""#),
            (adopt(#"{"program": "boxing", "run": "running", "elapsed_before_ns": 0}"#), #""session": a running session needs "anchor_realtime_ns""#),
            (adopt(#"{"program": "boxing", "run": "paused", "elapsed_before_ns": 5, "anchor_realtime_ns": 1}"#),
             #""session": only a running session has an "anchor_realtime_ns" (it is paused)"#),
            (adopt(#"{"program": "boxing", "run": "ready", "elapsed_before_ns": 0, "adopted": 3}"#), #"unknown member "adopted" in "session""#),
            (adopt(#"{"program": "boxing", "run": "running", "elapsed_before_ns": 3162240000000000001, "anchor_realtime_ns": 1}"#),
             #""session"."elapsed_before_ns" must be a whole number of nanoseconds from 0 to 3162240000000000000"#),
            (#"{"command": "adopt", "token": 1, "session": {}, "x": 1}"#, #"unknown member "x" for "adopt""#),
        ]
        for (line, why) in cases {
            #expect(throws: ControlError(why)) { try ControlRequest.parse(line) }
        }
    }

    /// A generated corpus of bad `adopt` lines: each member given a wrong type, dropped, or
    /// a number that is huge, negative, fractional or in exponent form; bad UTF-8 spliced in;
    /// unknown program words are fine for the parser (the clock refuses them:
    /// `SessionAdopterTests`). Every one is refused with a one-line error, never fatal.
    @Test func aGeneratedCorpusOfBadAdoptsIsRefusedWithOneLineEach() {
        let seed = getenv("ADOPT_SEED").flatMap { UInt64(String(cString: $0)) } ?? UInt64.random(in: 0...UInt64.max)
        print("SessionShareTests adopt corpus seed \(seed) (replay: ADOPT_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        let members = ["program": #""boxing""#, "run": #""running""#, "elapsed_before_ns": "0", "anchor_realtime_ns": "1795412345678901234"]
        let wrong = [#""x""#, "null", "true", "[]", "{}", "-1", "1.5", "1e3", "99999999999999999999999", "-9223372036854775809", #""""#, #""running ""#]
        let order = ["program", "run", "elapsed_before_ns", "anchor_realtime_ns"]
        var refused = 0
        for _ in 0..<2_000 {
            var session = members
            let victim = rng.pick(order)
            switch rng.next() % 3 {
            case 0: session[victim] = nil
            default:
                // Any string is a program name to the parser: the program gets non-strings.
                session[victim] = victim == "program" ? rng.pick(wrong.filter { !$0.hasPrefix("\"") }) : rng.pick(wrong)
            }
            if victim == "anchor_realtime_ns", session[victim] == "null" { session[victim] = "-5" }  // null is valid only when not running
            let body = order.compactMap { key in session[key].map { "\"\(key)\": \($0)" } }.joined(separator: ", ")
            let token = rng.chance(20) ? rng.pick(wrong) : String(rng.next() >> 1)
            var line = Array(#"{"command": "adopt", "token": \#(token), "session": {\#(body)}}"#.utf8)
            if rng.chance(10) {
                line.insert(contentsOf: rng.pick([[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]]), at: Int(rng.next() % UInt64(line.count)))
            }
            do {
                let request = try ControlRequest.parse(line)
                Issue.record("accepted \(String(decoding: line, as: UTF8.self)) as \(request) (seed \(seed))")
            } catch {
                refused += 1
                #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(error.description) (seed \(seed))")
                #expect(ControlReply.parse(ControlReply.failed(error.description).line) == .failed(error.description))
            }
        }
        #expect(refused == 2_000)
    }
}
