import ControlProtocol
import Foundation
import JSON
import RoundClockCore
import Testing
import TestSupport

/// The running program on the state line (docs/control-protocol.md "The program's
/// definition"): what the clock runs comes back as the same `Program`, on the line itself.
@Suite struct ProgramDefinitionTests {
    static func line(_ program: Program) -> String {
        ControlState(state: "ready", phase: "prep", round: 0, rounds: program.rounds, program: program.name, brightness: 15,
                     panels: [.init(role: "time", text: " 0:10")], definition: program).line
    }

    static let structured: Program = {
        var plan = IntervalPlan(prep: .seconds(5), intervals: [
            Interval(label: "WALL", length: .seconds(45), halfway: true, callout: "wall balls"),
            Interval(label: "WALK", length: .seconds(20), counting: .up, kind: .rest, signal: .tick),
            Interval(label: "SPRT", length: .milliseconds(12_500), signal: .some(nil)),
        ])
        plan.rounds = 3
        plan.roundRest = .seconds(15)
        plan.sets = 2
        plan.setRest = .seconds(90)
        plan.warning = .seconds(5)
        plan.countdownBeeps = 2
        plan.overtime = true
        plan.countsRounds = true
        return try! plan.program(name: "x", label: "XX")
    }()

    @Test func everyPresetAndAStructuredProgramReadBackAsTheSameProgram() throws {
        let presets = Presets.cycle + Presets.more + [try Presets.countdown(.seconds(95)), try Presets.emom(minutes: 3)]
        for program in presets + [Self.structured] {
            let state = try #require(ControlState.parse(Self.line(program)), "\(program.name)")
            #expect(state.definition == program, "\(program.name)")
            #expect(state.definition?.signals == program.signals && state.definition?.starts == program.starts)
        }
        #expect(Presets.cycle.contains(.wallClock))
    }

    @Test func generatedProgramsReadBackAsTheSameProgram() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ProgramDefinitionTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        for _ in 0..<300 {
            let program = Self.generated(&random)
            #expect(ControlState.parse(Self.line(program))?.definition == program, "seed \(seed): \(Self.line(program))")
        }
    }

    static func generated(_ random: inout SplitMix64) -> Program {
        let labels = ["WALL", "ROW", "A", "1 2", "OVER"]
        let signals: [Signal?] = [nil, .start, .tick, .halfway, .switch, .warning]
        while true {
            let intervals = (0...random.next() % 3).map { _ in
                Interval(label: random.pick(labels), length: .milliseconds(Int64(1 + random.next() % 600_000)),
                         counting: random.pick([.down, .up]), kind: random.pick([.work, .rest]),
                         signal: .some(random.pick(signals)), halfway: random.chance(30),
                         callout: random.chance(50) ? random.pick(["wall balls", "row", "push press"]) : nil)
            }
            var plan = IntervalPlan(prep: random.chance(70) ? .seconds(Int64(1 + random.next() % 30)) : nil, intervals: intervals)
            plan.rounds = Int(1 + random.next() % 6)
            plan.sets = Int(1 + random.next() % 3)
            plan.roundRest = random.chance(50) ? .seconds(Int64(1 + random.next() % 60)) : nil
            plan.setRest = random.chance(50) ? .seconds(Int64(1 + random.next() % 120)) : nil
            plan.warning = random.chance(50) ? .seconds(Int64(1 + random.next() % 20)) : nil
            plan.countdownBeeps = random.chance(50) ? Int(random.next() % 11) : nil
            plan.halfway = random.chance(20)
            plan.overtime = random.chance(20)
            plan.countsRounds = random.chance(20)
            if let program = try? plan.program(name: "p\(random.next() % 100)", label: random.pick(labels)) { return program }
        }
    }

    @Test func aMalformedDefinitionIsNoStateLine() {
        let base = #"{"state": "ready", "phase": "prep", "round": 0, "rounds": 1, "program": "x", "brightness": 15, "panels": {}"#
        #expect(ControlState.parse(base + "}")?.definition == nil)
        let phase = #"{"kind": "work", "length_ns": 7000000000, "round": 1}"#
        #expect(ControlState.parse(base + #", "definition": {"kind": "intervals", "label": "X", "phases": [\#(phase)]}}"#)?
            .definition?.total == .seconds(7))
        for bad in [
            #"{"kind": "intervals", "label": "X", "phases": []}"#,
            #"{"kind": "intervals", "label": "X", "phases": [{"kind": "work", "length_ns": 0, "round": 1}]}"#,
            #"{"kind": "intervals", "label": "X", "phases": [{"kind": "jog", "length_ns": 1, "round": 1}]}"#,
            #"{"kind": "intervals", "label": "X", "phases": [{"kind": "work", "length_ns": 1, "round": 1, "halfway": "gong"}]}"#,
            #"{"kind": "intervals", "label": "X", "phases": [{"kind": "work", "length_ns": 1, "round": 1, "set": "1"}]}"#,
            #"{"kind": "intervals", "label": "X", "countdown_beeps": 11, "phases": [\#(phase)]}"#,
            #"{"kind": "timer", "label": "X"}"#, #"{"kind": "intervals", "phases": [\#(phase)]}"#, "[]",
        ] {
            #expect(ControlState.parse(base + #", "definition": "# + bad + "}") == nil, "\(bad)")
        }
    }

    /// The page's example line reads back, with the program it says it is.
    @Test func theDocumentedExampleIsTheProgramItDescribes() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/control-protocol.md")
        let page = try String(contentsOf: docs, encoding: .utf8)
        let blocks = page.components(separatedBy: "```json\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let example = try #require(blocks.first { $0.contains(#""definition""#) })
        let state = try #require(ControlState.parse(example.split(separator: "\n").joined(separator: " ")))
        var plan = IntervalPlan(prep: .seconds(5), intervals: [
            Interval(label: "JUMP", length: .seconds(7), halfway: true, callout: "jumps"),
            Interval(label: "BRTH", length: .seconds(3), kind: .rest, callout: "breathe"),
        ])
        plan.rounds = 3
        plan.countdownBeeps = 3
        let described = try plan.program(name: "x", label: "JMPS")
        #expect(state.definition == described)
        let documented = try JSONParser(maxBytes: 8192).parse(example)["definition"]
        #expect(ProgramDefinition.json(try #require(state.definition)) == documented)
    }
}
