@testable import ClockLink
import ControlProtocol
import Foundation
@testable import RemoteGateway
import TestSupport
import Testing

/// The program editor's bodies (`POST /api/editor/check`, `save`, `delete`): accepted ones
/// become exactly one socket line of their route's request; everything else is refused with
/// the clock's words, on one line.
@Suite struct EditorBodyTests {
    @Test func bodiesBecomeTheirRoutesSocketLine() throws {
        let toml = "[programs.a]\nintervals = [{label = \"ROW\", time = \"0:40\"}]\n"
        let body = Array(String(decoding: try JSONSerialization.data(withJSONObject: ["toml": toml]), as: UTF8.self).utf8)
        #expect(try EditorBody.line(body, route: "check") == ControlRequest.edit(.check(toml: toml)).line)
        #expect(try EditorBody.line(body, route: "save") == ControlRequest.edit(.save(toml: toml)).line)
        #expect(try EditorBody.line(Array(#"{"program": "a"}"#.utf8), route: "delete") == #"{"command": "program-delete", "program": "a"}"#)
    }

    @Test func aBodyWithinTheLimitWhoseLineIsLongerIsRefusedHere() throws {
        // The line adds the command's name to the body: a body just within the limit gives a
        // line over it, which the clock would refuse without a word about the program.
        let filler = String(repeating: "x", count: EditorBody.maximumBytes - 40)
        let body = Array(#"{"toml": "[programs.a]\n# \#(filler)"}"#.utf8)
        #expect(body.count <= EditorBody.maximumBytes)
        #expect(throws: CommandBody.Problem.self) { try EditorBody.line(body, route: "save") }
        do {
            _ = try EditorBody.line(body, route: "save")
        } catch {
            #expect(error.description.hasPrefix("the request is "), "\(error.description)")
            #expect(error.description.hasSuffix("bytes as the clock's line; at most 4096"))
        }
    }

    @Test(arguments: [
        (#"{"toml": "x"}"#, "delete", #"unknown member "toml" for "program-delete""#),
        (#"{"program": "a"}"#, "check", #"unknown member "program" for "program-check""#),
        (#"{}"#, "save", #""program-save" needs a "toml": a [programs.NAME] snippet"#),
        (#"{"toml": ""}"#, "save", #""toml" must be a non-empty string"#),
        (#"{"command": "start", "toml": "x"}"#, "save", #"unknown member "command" (the route says it: program-save); got "start""#),
        (#"["x"]"#, "check", "the body must be a JSON object, like"),
        (#"{"toml": "#, "check", "not JSON"),
        (#"{"toml": "x"}"#, "fly", #"unknown editor route "fly""#),
    ])
    func badBodiesAreRefused(_ body: String, _ route: String, _ fragment: String) {
        do {
            _ = try EditorBody.line(Array(body.utf8), route: route)
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.description.hasPrefix(fragment), "\(error.description)")
        }
    }

    /// Mutated bodies never crash: one line that the clock's parser reads back as an editor
    /// request, or a one-line refusal.
    @Test func generatedBodiesAreOneLineOrRefused() throws {
        let seed = ProcessInfo.processInfo.environment["ROUNDCLOCK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("EditorBodyTests corpus seed: \(seed) (replay: ROUNDCLOCK_SEED=\(seed))")
        var random = SplitMix64(seed: seed)
        let seeds = [#"{"toml": "[programs.a]\nintervals = [{label = \"ROW\", time = \"0:40\"}]"}"#, #"{"program": "circuit"}"#]
        let noise: [UInt8] = Array(#"{}[]":,\ 0an"#.utf8) + [0x00, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var accepted = 0
        for _ in 0..<5000 {
            let bytes = random.mutated(Array(random.pick(seeds).utf8), noise: noise)
            let route = random.pick(["check", "save", "delete"])
            do {
                let line = try EditorBody.line(bytes, route: route)
                accepted += 1
                #expect(!line.utf8.contains { $0 < 0x20 }, "seed \(seed): one line: \(line.debugDescription)")
                guard case .edit = try ControlRequest.parse(line) else {
                    Issue.record("seed \(seed): not an editor request: \(line)")
                    continue
                }
            } catch {
                #expect(!"\(error)".contains("\n"), "seed \(seed): one line")
            }
        }
        #expect(accepted > 100, "seed \(seed): the corpus keeps some good bodies")
    }
}
