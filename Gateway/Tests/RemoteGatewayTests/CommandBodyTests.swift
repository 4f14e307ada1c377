import FoundationEssentials
import Testing
import TestSupport
@testable import RemoteGateway

/// `POST /api/command` bodies: accepted ones become exactly one line of the socket's wire
/// contract holding the same object; everything else is refused with a message.
@Suite struct CommandBodyTests {
    @Test func commandObjectsBecomeOneSortedLine() throws {
        #expect(try CommandBody.line(Array(#"{"command": "start"}"#.utf8)) == #"{"command":"start"}"#)
        #expect(try CommandBody.line(Array(#" {"program":"tabata","command":"program"} "#.utf8)) == #"{"command":"program","program":"tabata"}"#)
        #expect(try CommandBody.line(Array(#"{"command":"x","a":"line\nbreak","n":3,"f":1.5,"b":false,"z":null}"#.utf8))
                == #"{"a":"line\nbreak","b":false,"command":"x","f":1.5,"n":3,"z":null}"#)
    }

    @Test(arguments: [
        (#"{"command": "subscribe"}"#, CommandBody.Problem.subscribe),
        (#"{"program": "tabata"}"#, .noCommand),
        (#"{"command": 1}"#, .noCommand),
        (#"["start"]"#, .notAFlatObject),
        (#""start""#, .notAFlatObject),
        (#"{"command": "start", "x": {"y": 1}}"#, .notAFlatObject),
        (#"{"command": "start""#, .notAFlatObject),
        ("", .notAFlatObject),
        ("start\n", .notAFlatObject),
    ])
    func badBodiesAreRefused(_ body: String, _ problem: CommandBody.Problem) {
        #expect(throws: problem) { try CommandBody.line(Array(body.utf8)) }
    }

    @Test func badUTF8IsRefused() {
        #expect(throws: CommandBody.Problem.notAFlatObject) { try CommandBody.line(Array(#"{"command": "st"#.utf8) + [0xFF, 0xFE] + Array(#"art"}"#.utf8)) }
    }

    /// Mutations of good bodies (bytes dropped, duplicated, replaced by JSON's structural
    /// characters, control bytes, invalid UTF-8): never a crash; an accepted body gives one
    /// line without a raw control character that decodes to a flat object with a string
    /// "command".
    @Test func generatedBodiesAreOneLineOrRefused() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("CommandBodyTests corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let seeds = [#"{"command": "start"}"#, #"{"command": "program", "program": "10 x 0:45/0:15"}"#, #"{"command":"mode","n":-1e3}"#]
        let noise: [UInt8] = Array(#"{}[]":,\ 0a"#.utf8) + [0x00, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var accepted = 0
        for _ in 0..<5000 {
            var bytes = Array(seeds[Int(random.next() % UInt64(seeds.count))].utf8)
            for _ in 0..<Int(random.next() % 4) where !bytes.isEmpty {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(bytes[at], at: at)
                default: bytes[at] = noise[Int(random.next() % UInt64(noise.count))]
                }
            }
            guard let line = try? CommandBody.line(bytes) else { continue }
            accepted += 1
            #expect(!line.utf8.contains { $0 < 0x20 }, "seed \(seed): one line: \(line.debugDescription)")
            let object = try JSONDecoder().decode([String: CommandBody.Scalar].self, from: Data(line.utf8))
            guard case .string? = object["command"] else { Issue.record("seed \(seed): no command in \(line)"); continue }
        }
        #expect(accepted > 100, "seed \(seed): the corpus keeps some good bodies")
    }
}
