@testable import ClockLink
import ControlProtocol
import TestSupport
import Testing

/// `POST /api/command` bodies: accepted ones become exactly one line of the socket's wire
/// contract for the same request; everything else is refused with the contract's words.
@Suite struct CommandBodyTests {
    @Test func commandObjectsBecomeTheirSocketLine() throws {
        #expect(try CommandBody.line(Array(#"{"command":"start"}"#.utf8)) == #"{"command": "start"}"#)
        #expect(try CommandBody.line(Array(#" {"program":"tabata","command":"program"} "#.utf8)) == #"{"command": "program", "program": "tabata"}"#)
        #expect(try CommandBody.line(Array(#"{"command": "program", "program": "a\nb"}"#.utf8)) == #"{"command": "program", "program": "a\nb"}"#)
    }

    /// The page's −10 s, +10 s and BACK: the live edits pass as their socket lines; an
    /// adjust without usable seconds is refused with the clock's words, naming the member.
    @Test func liveEditsPassAndBadSecondsAreRefused() throws {
        #expect(try CommandBody.line(Array(#"{"command":"adjust","seconds":10}"#.utf8)) == #"{"command": "adjust", "seconds": 10}"#)
        #expect(try CommandBody.line(Array(#"{"seconds":-10,"command":"adjust"}"#.utf8)) == #"{"command": "adjust", "seconds": -10}"#)
        #expect(try CommandBody.line(Array(#"{"command":"back"}"#.utf8)) == #"{"command": "back"}"#)
        for bad in [#"{"command":"adjust"}"#, #"{"command":"adjust","seconds":"10"}"#, #"{"command":"adjust","seconds":0}"#] {
            #expect(throws: CommandBody.Problem.self) { try CommandBody.line(Array(bad.utf8)) }
            do { _ = try CommandBody.line(Array(bad.utf8)) } catch { #expect(error.description.contains("\"seconds\""), "\(error)") }
        }
    }

    @Test(arguments: [
        (#"{"command": "subscribe"}"#, "only the button commands"),
        (#"{"command": "version"}"#, "only the button commands"),
        (#"{"command": "show-pin", "pin": "1234", "seconds": 600}"#, "only the button commands"),
        (#"{"command": "settings-set", "values": {"brightness.day": 1}}"#, "only the button commands"),
        (#"{"program": "tabata"}"#, "missing \"command\""),
        (#"{"command": 1}"#, "\"command\" must be a string"),
        (#"["start"]"#, "a request is a JSON object"),
        (#"{"command": "fly"}"#, "unknown command \"fly\""),
        (#"{"command": "start", "x": 1}"#, "unknown member \"x\""),
        (#"{"command": "start""#, "not JSON"),
        ("", "not JSON"),
    ])
    func badBodiesAreRefused(_ body: String, _ fragment: String) {
        do {
            _ = try CommandBody.line(Array(body.utf8))
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.description.contains(fragment), "\(error.description)")
        }
    }

    @Test func badUTF8IsRefused() {
        #expect(throws: CommandBody.Problem.self) { try CommandBody.line(Array(#"{"command": "st"#.utf8) + [0xFF, 0xFE] + Array(#"art"}"#.utf8)) }
    }

    /// Mutations of good bodies (bytes dropped, duplicated, replaced by JSON's structural
    /// characters, control bytes, invalid UTF-8): never a crash; an accepted body gives one
    /// line without a raw control character that the clock's parser reads back as the same
    /// request; a refusal is one line.
    @Test func generatedBodiesAreOneLineOrRefused() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("CommandBodyTests corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let seeds = [#"{"command": "start"}"#, #"{"command": "program", "program": "10 x 0:45/0:15"}"#, #"{"command":"mode"}"#]
        let noise: [UInt8] = Array(#"{}[]":,\ 0a"#.utf8) + [0x00, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var accepted = 0
        for _ in 0..<5000 {
            let bytes = random.mutated(Array(random.pick(seeds).utf8), noise: noise)
            do {
                let line = try CommandBody.line(bytes)
                accepted += 1
                #expect(!line.utf8.contains { $0 < 0x20 }, "seed \(seed): one line: \(line.debugDescription)")
                #expect(try ControlRequest.parse(line) == ControlRequest.parse(bytes), "seed \(seed): \(line)")
            } catch {
                #expect(!"\(error)".contains("\n"), "seed \(seed): one line")
            }
        }
        #expect(accepted > 100, "seed \(seed): the corpus keeps some good bodies")
    }
}
