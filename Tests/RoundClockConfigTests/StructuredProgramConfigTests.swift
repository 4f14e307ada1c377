import RoundClockCore
import Testing
import TestSupport
@testable import RoundClockConfig

/// `[programs.NAME]` tables: what they build, and that any mutation of one is
/// accepted or refused with one line naming the key path, never a crash.
@Suite struct StructuredProgramConfigTests {
    static let fightGoneBad = """
        program = "fightgonebad"
        [programs.fightgonebad]
        prep = "0:10"
        sets = 3
        set_rest = "1:00"
        intervals = [ {label = "WALL", time = "1:00", say = "wall balls"},
                      {label = "SDHP", time = "1:00", say = "sumo deadlift high pull"},
                      {label = "BOX",  time = "1:00", say = "box jumps"}, {label = "PUSH", time = "1:00", say = "push press"},
                      {label = "ROW",  time = "1:00"} ]
        """

    @Test func fightGoneBadFromTheConfigIsTheFgbPreset() throws {
        let config = try Config.parse(Self.fightGoneBad, file: "c.toml")
        let program = config.program
        #expect(program.name == "fightgonebad")
        #expect(program.phases == Presets.fgb.phases, "the same plan as the fgb preset")
        #expect(program.total == .seconds(17 * 60 + 10))
        #expect(config.catalog.last?.name == "fightgonebad")
        #expect(program.plan == "prep 0:10, 3 sets × 1 × (WALL 1:00, SDHP 1:00, BOX 1:00, PUSH 1:00, ROW 1:00), 1:00 rest between sets")
    }

    @Test func everyOptionReachesTheProgram() throws {
        let config = try Config.parse("""
            [programs.circuit]
            label = "circ"
            prep = "0:05"
            rounds = 2
            rest = "0:15"
            warn = "0:03"
            halfway = true
            countdown_beeps = 2
            count_rounds = true
            overtime = true
            intervals = [ {label = "row", time = "0:40", count = "up"},
                          {label = "WAIT", time = "0:10", kind = "rest", signal = "tick", halfway = true} ]
            [programs.ft]
            base = "fortime:12"
            overtime = true
            """, file: "c.toml")
        let circuit = try #require(config.programs.first { $0.name == "circuit" })
        #expect(circuit.label == "CIRC")
        #expect(circuit.phases.map { $0.label ?? $0.kind.rawValue } == ["prep", "ROW", "WAIT", "rest", "ROW", "WAIT", "OVER"])
        #expect(circuit.phases[1].counting == .up && circuit.phases[2].kind == .rest && circuit.phases[2].startSignal == .tick)
        #expect(circuit.phases[1].halfwaySignal == .halfway && circuit.phases[2].halfwaySignal == .halfway)
        #expect(circuit.countdownBeeps == 2 && circuit.countsRounds && circuit.hasOvertime && circuit.warning == .seconds(3))
        let ft = try #require(config.programs.first { $0.name == "ft" })
        #expect(ft.label == "FT" && ft.hasOvertime && ft.totalDescription == "12:10+")
        #expect(ft.phases.last?.startSignal == .finish)
    }

    /// Values each key may be given in the corpus: good ones and bad ones of every type.
    static let values = ["\"0:10\"", "\"1:00\"", "\"24:00:01\"", "\"-1\"", "\"\"", "\"ab\"", "0", "1", "3", "9", "10", "99", "100",
                         "-5", "true", "false", "1.5", "[]", "[1, 2]", "{}", "\"WALL\"", "\"SQUAT\"", "\"R\\u0000W\"",
                         "\"fortime:20\"", "\"clock\"", "\"stopwatch\"", "\"3 x 0:20/0:10\"", "\"halfway\"", "\"none\"", "\"up\"", "\"rest\""]
    static let programKeys = ["prep", "sets", "set_rest", "rounds", "rest", "warn", "label", "halfway", "countdown_beeps",
                              "overtime", "count_rounds", "base", "colour"]
    static let intervalKeys = ["label", "time", "count", "kind", "signal", "halfway", "bogus"]

    @Test func generatedProgramsAreAcceptedOrRefusedOnOneLine() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("generatedProgramsAreAcceptedOrRefusedOnOneLine seed \(seed)")
        var rng = SplitMix64(seed: seed)
        var refused = 0
        for _ in 0..<600 {
            var lines = ["[programs.p]"]
            for _ in 0..<Int(rng.next() % 5) { lines.append("\(rng.pick(Self.programKeys)) = \(rng.pick(Self.values))") }
            var intervals: [String] = []
            for _ in 0..<Int(rng.next() % 4) {
                var fields = ["label = \((rng.next() % 100 < 80) ? "\"ROW\"" : rng.pick(Self.values))", "time = \((rng.next() % 100 < 80) ? "\"0:30\"" : rng.pick(Self.values))"]
                for _ in 0..<Int(rng.next() % 3) { fields.append("\(rng.pick(Self.intervalKeys)) = \(rng.pick(Self.values))") }
                intervals.append("{" + fields.joined(separator: ", ") + "}")
            }
            if (rng.next() % 100 < 90) { lines.append("intervals = [" + intervals.joined(separator: ", ") + "]") }
            let text = lines.joined(separator: "\n") + "\n"
            do {
                let config = try Config.parse(text, file: "gen.toml")
                #expect(config.programs.count == 1, "seed \(seed)")
            } catch {
                refused += 1
                let line = error.description
                #expect(line.hasPrefix("gen.toml: "), "seed \(seed): \(line)")
                #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "seed \(seed): one line: \(line)")
                #expect(line.hasPrefix("gen.toml: programs.p") || line.hasPrefix("gen.toml: line "), "seed \(seed): names the key path: \(line)\n\(text)")
            }
        }
        #expect(refused > 100 && refused < 600, "seed \(seed): the corpus has both kinds (\(refused) refused)")
    }

    @Test func generatedStartTimesAreAcceptedOrRefusedOnOneLine() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("generatedStartTimesAreAcceptedOrRefusedOnOneLine seed \(seed)")
        var rng = SplitMix64(seed: seed)
        let pieces = ["18:30", "06:00", "07:15:30", "0", "1", "2", "3", "5", "9", ":", ":", "00", "23", "24", "59", "60", " ", "-", "+", "a", "\\u0000"]
        var accepted = 0
        for _ in 0..<500 {
            let times = (0..<Int(rng.next() % 4)).map { _ in
                "\"" + (0..<Int(rng.next() % 6 + 1)).map { _ in rng.pick(pieces) }.joined() + "\""
            }
            let text = "start_at = [" + times.joined(separator: ", ") + "]\n"
            do {
                let config = try Config.parse(text, file: "gen.toml")
                accepted += 1
                #expect(config.classStarts?.secondsOfDay.allSatisfy { (0..<86_400).contains($0) } == true, "seed \(seed): \(text)")
            } catch {
                #expect(error.description.hasPrefix("gen.toml: start_at: ") || error.description.hasPrefix("gen.toml: line "), "seed \(seed): \(error)")
                #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "seed \(seed)")
            }
        }
        let config = try Config.parse("start_at = [\"18:30:15\", \"06:00\"]", file: "c.toml")
        #expect(config.classStarts?.secondsOfDay == [21_600, 66_615])
        #expect(config.summary(board: try config.loadBoard()).contains("\nstarts by itself at: 06:00, 18:30:15\n"))
        print("start_at corpus: \(accepted) of 500 accepted")
    }
}
