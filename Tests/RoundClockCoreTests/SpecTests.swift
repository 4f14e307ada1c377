import Testing
@testable import RoundClockCore

@Suite struct SpecTests {
    @Test func aMistypedPresetNameSuggestsTheNearest() {
        func suggestion(_ spec: String, _ names: [String] = []) -> String? {
            do { _ = try ProgramSpec.parse(spec, alsoNamed: names) } catch { return error.suggestion }
            return nil
        }
        #expect(suggestion("tabbata") == "tabata")
        #expect(suggestion("Boxng") == "boxing")
        #expect(suggestion("emon:12") == "emom")
        #expect(suggestion("sparing", ["sparring"]) == "sparring")
        #expect(suggestion("xyz") == nil)
        #expect(NearestName.of("tabata", among: ["tabata"]) == nil)
    }

    @Test func dslVariants() throws {
        for text in ["10 x 0:45/0:15", "10x0:45/0:15", "10 X 0:45 / 0:15", "10 × 0:45/0:15"] {
            let p = try ProgramSpec.parse(text)
            #expect(p.rounds == 10 && p.phases.count == 19, "\(text)")
        }
        let p = try ProgramSpec.parse("  4 x 2:00/1:00 , warn 0:30 , prep 0:05 ")
        #expect(p.phases.first == Phase(.prep, length: .seconds(5), round: 0))
        #expect(p.warning == .seconds(30))
        #expect(try ProgramSpec.parse("2 x 1:00:00").total == .seconds(7200))
        #expect(try ProgramSpec.parse("BOXING").name == "boxing")
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var spec: String
        var token: String
        var expectedContains: String
        var testDescription: String { spec }
    }

    static let bad: [Bad] = [
        .init(spec: "", token: "", expectedContains: "a preset"),
        .init(spec: "boxen", token: "boxen", expectedContains: "a preset (boxing"),
        .init(spec: "boxing:3", token: ":3", expectedContains: "no argument"),
        .init(spec: "emom:x", token: "x", expectedContains: "whole number of minutes"),
        .init(spec: "emom:0", token: "emom:0", expectedContains: "1 to 99"),
        .init(spec: "amrap:0", token: "amrap:0", expectedContains: "1 to 1440"),
        .init(spec: "countdown", token: "countdown", expectedContains: "M:SS"),
        .init(spec: "countdown:5:60", token: "5:60", expectedContains: "M:SS"),
        .init(spec: "countdown:0:00", token: "countdown:0:00", expectedContains: "longer than 0:00"),
        .init(spec: "10 x 0:4/0:15", token: "0:4", expectedContains: "work time"),
        .init(spec: "10 x 0:45/", token: "/", expectedContains: "/REST"),
        .init(spec: "10 x 0:45/0:15 extra", token: "extra", expectedContains: "comma"),
        .init(spec: "10 0:45", token: "0:45", expectedContains: "\"x\""),
        .init(spec: "10 x", token: "10 x", expectedContains: "work time"),
        .init(spec: "0 x 1:00", token: "0", expectedContains: "1 to 99"),
        .init(spec: "100 x 1:00", token: "100", expectedContains: "1 to 99"),
        .init(spec: "ten x 1:00, prep 0:10", token: "ten", expectedContains: "number of rounds"),
        .init(spec: "3 x 1:00, pre 0:10", token: "pre", expectedContains: "\"prep\" or \"warn\""),
        .init(spec: "3 x 1:00, prep", token: "prep", expectedContains: "one time after"),
        .init(spec: "3 x 1:00, prep 0:10 0:20", token: "0:20", expectedContains: "one time after"),
        .init(spec: "3 x 1:00, prep 0:99", token: "0:99", expectedContains: "time M:SS"),
        .init(spec: "3 x 1:00, warn 1:00", token: "1:00", expectedContains: "shorter than the work"),
        .init(spec: "3 x 1:00, prep 0:10, prep 0:05", token: "prep 0:05", expectedContains: "at most once"),
        .init(spec: "3 x 1:00,", token: "", expectedContains: "an item after the comma"),
        .init(spec: "3 x 0:00", token: "0:00", expectedContains: "longer than 0:00"),
        .init(spec: "3 x 25:00:00", token: "25:00:00", expectedContains: "at most"),
    ]

    @Test(arguments: bad)
    func badSpecQuotesTheToken(_ b: Bad) {
        do {
            let p = try ProgramSpec.parse(b.spec)
            Issue.record("parsed \(p.name)")
        } catch {
            #expect(error.token == b.token)
            #expect(error.expected.contains(b.expectedContains), "\(error)")
            #expect(error.description.hasPrefix("bad program \"\(b.spec)\": \"\(b.token)\""))
        }
    }

    @Test func timeText() {
        #expect(TimeText.parse("0:45", atMost: TimeLimits.maximumPhase) == .seconds(45))
        #expect(TimeText.parse("47:10", atMost: TimeLimits.maximumPhase) == .seconds(2830))
        #expect(TimeText.parse("1:00:05", atMost: TimeLimits.maximumPhase) == .seconds(3605))
        #expect(TimeText.parse("90", atMost: TimeLimits.maximumPhase) == .seconds(90))
        #expect(TimeText.parse("2.5", atMost: TimeLimits.maximumPhase) == .milliseconds(2500))
        for bad in ["", ":", "1:5", "1:60", "a", "1::00", "-5", "1.", ".5", "1:00:00:00", "1e3"] {
            #expect(TimeText.parse(bad, atMost: TimeLimits.maximumPhase) == nil, "\(bad)")
        }
    }

    @Test func eventScript() throws {
        let presses = try ScriptedPress.parseList("30:stop, 40:start,60.5:STOP:2.5")
        #expect(presses == [
            ScriptedPress(at: .seconds(30), button: .stop, hold: .milliseconds(100)),
            ScriptedPress(at: .seconds(40), button: .start, hold: .milliseconds(100)),
            ScriptedPress(at: .milliseconds(60500), button: .stop, hold: .milliseconds(2500)),
        ])
        let cases: [(String, String)] = [("5:jump", "jump"), ("x:start", "x"), ("5", "5"), ("5:stop:0", "0"), ("5:stop:1:2", "5:stop:1:2"), ("", "")]
        for (list, token) in cases {
            #expect(throws: EventScriptError.self) { try ScriptedPress.parseList(list) }
            do { _ = try ScriptedPress.parseList(list) } catch { #expect(error.token == token, "\(list)") }
        }
    }
}
