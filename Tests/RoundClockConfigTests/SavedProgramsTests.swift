import Foundation
import RoundClockCore
import Testing
import TestSupport
@testable import RoundClockConfig

/// The editor's saved programs: a snippet is read by the config file's parser (same errors
/// as `check-config`), the saved file reads back as the same snippets, and the limits, the
/// config's names and a corrupt file each give one line.
@Suite struct SavedProgramsTests {
    static let circuit = """
        [programs.circuit]
        prep = "0:05"
        rounds = 2
        rest = "0:15"
        intervals = [ {label = "ROW", time = "0:40", count = "up"},
                      {label = "WALK", time = "0:10", kind = "rest"} ]
        """

    static func snippet(_ name: String, time: String = "1:00") -> String {
        "[programs.\(name)]\nintervals = [ {label = \"WORK\", time = \"\(time)\"} ]\n"
    }

    @Test func aSnippetIsTheProgramTheConfigFileWouldHave() throws {
        let program = try SavedPrograms.check(Self.circuit)
        let configured = try #require(Config.parse(Self.circuit, file: "c.toml").programs.first)
        #expect(program == configured)
        #expect(program.totalDescription == "2:00")
    }

    @Test func aBadSnippetIsCheckConfigsLineWithProgramAsItsFile() throws {
        let bad = Self.circuit.replacingOccurrences(of: "\"0:40\"", with: "\"0:4x\"")
        var configError = ""
        do { _ = try Config.parse(bad, file: "/etc/roundclock/config.toml") } catch { configError = error.description }
        var snippetError = ""
        do { _ = try SavedPrograms.check(bad) } catch { snippetError = error.description }
        #expect(snippetError == "program: programs.circuit.intervals[1].time: \"0:4x\" is not a usable time; use \"M:SS\", "
            + "\"H:MM:SS\" or seconds, longer than 0:00 and at most 24:00:00")
        #expect(configError == "/etc/roundclock/config.toml: line 5: " + snippetError.dropFirst("program: ".count))
    }

    @Test func aSnippetIsExactlyOneProgramUnderItsHeader() {
        let cases: [(String, String)] = [
            ("program = \"tabata\"\n" + Self.snippet("a"), "program: line 1, column 1: a program starts with its table header, e.g. [programs.circuit]"),
            (Self.snippet("a") + Self.snippet("b"), "program: programs: 2 programs; give exactly one [programs.NAME] table"),
            (Self.snippet("a") + "[buzzer]\nstart = 100\n", "program: buzzer: unknown key"),
            ("[programs.Bad]\nbase = \"tabata\"\n", "program: programs.Bad: \"Bad\" is not a usable program name; use 1 to 24 lowercase letters, digits, '-' or '_', starting with a letter"),
        ]
        for (text, expected) in cases {
            var line = ""
            do { _ = try SavedPrograms.check(text) } catch { line = error.description }
            #expect(line.hasPrefix(expected), "\(text)")
        }
    }

    @Test func savedProgramsReadBackAsTheSameSnippets() throws {
        var saved = SavedPrograms()
        saved = try saved.saving("# my circuit\n\n" + Self.circuit, configured: []).saved
        saved = try saved.saving(Self.snippet("amrap-ish"), configured: []).saved
        saved = try saved.saving(Self.snippet("circuit", time: "2:00"), configured: []).saved
        #expect(saved.programs.map(\.name) == ["amrap-ish", "circuit"])
        #expect(saved.programs.last?.total == .seconds(120))
        let reread = try SavedPrograms.load(saved.text, file: "/var/lib/roundclock/programs.toml")
        #expect(reread == saved)
        #expect(reread.snippets["circuit"] == Self.snippet("circuit", time: "2:00"))
        let deleted = try #require(saved.deleting("circuit"))
        #expect(deleted.programs.map(\.name) == ["amrap-ish"] && deleted.text == Self.snippet("amrap-ish"))
        #expect(deleted.deleting("circuit") == nil)
    }

    @Test func theConfigsProgramsCannotBeOverwritten() throws {
        let configured = try Config.parse(Self.snippet("circuit"), file: "c.toml").programs
        var line = ""
        do { _ = try SavedPrograms().saving(Self.circuit, configured: configured) } catch { line = error.description }
        #expect(line == "program: programs.circuit: \"circuit\" is a program of the config file, which the editor cannot change; pick another name")
    }

    @Test func theCountAndSizeAreBounded() throws {
        var saved = SavedPrograms()
        for index in 0..<SavedPrograms.maxPrograms { saved = try saved.saving(Self.snippet("p\(index)"), configured: []).saved }
        var line = ""
        do { _ = try saved.saving(Self.snippet("one-more"), configured: []) } catch { line = error.description }
        #expect(line == "program: programs.one-more: 64 programs are saved already; delete one first")
        // Replacing one is still fine at the limit.
        #expect(try saved.saving(Self.snippet("p0", time: "2:00"), configured: []).saved.programs.count == 64)

        let padding = "# " + String(repeating: "x", count: 4000) + "\n"
        var big = SavedPrograms()
        var refused = ""
        for index in 0..<20 {
            do { big = try big.saving(Self.snippet("b\(index)") + padding, configured: []).saved } catch {
                refused = error.description
                break
            }
        }
        #expect(refused.hasPrefix("program: programs.b16: the saved programs would take "), "\(refused)")
        #expect(refused.hasSuffix("bytes; at most 65536; delete one first"))
        #expect(big.text.utf8.count <= SavedPrograms.maxBytes)
    }

    @Test func aCorruptFileIsOneLineNamingIt() {
        let path = "/var/lib/roundclock/programs.toml"
        let cases = [
            "[programs.a\n",
            Self.snippet("a") + "[programs.b]\nintervals = 3\n",
            "[programs]\nhiit = \"10 x 0:45/0:15\"\n",
            String(repeating: "#", count: SavedPrograms.maxBytes + 1),
        ]
        for text in cases {
            do {
                let loaded = try SavedPrograms.load(text, file: path)
                Issue.record("accepted \(loaded.programs.map(\.name)) from \(text.prefix(80))")
            } catch {
                #expect(error.description.hasPrefix(path + ": "), "\(error)")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    /// Random snippets (the config corpus's keys and values, and byte edits of a good one)
    /// are checked and saved without a crash: a program, or one line naming `program:`.
    @Test func generatedSnippetsAreAcceptedOrRefusedOnOneLine() {
        let seed = ProcessInfo.processInfo.environment["ROUNDCLOCK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("SavedProgramsTests.generatedSnippetsAreAcceptedOrRefusedOnOneLine seed \(seed) (replay: ROUNDCLOCK_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        let headers = ["[programs.p]", "[programs.q]", "[programs]", "[programs.p.x]", "[[programs.p]]", "[buzzer]", "", "# c\n[programs.p]"]
        let pieces = ["[", "]", "\"", "{", "}", "=", ",", "\n", "\\", "#", "\u{0}", "é", "[programs.z]\n", "\"\"\"", "0:30", " "]
        var saved = SavedPrograms()
        var refused = 0
        for _ in 0..<800 {
            var lines = [rng.next() % 100 < 85 ? "[programs.p]" : rng.pick(headers)]
            for _ in 0..<Int(rng.next() % 4) {
                lines.append("\(rng.pick(StructuredProgramConfigTests.programKeys)) = \(rng.pick(StructuredProgramConfigTests.values))")
            }
            let time = rng.next() % 100 < 80 ? "\"0:30\"" : rng.pick(StructuredProgramConfigTests.values)
            if rng.next() % 100 < 90 { lines.append("intervals = [{label = \"ROW\", time = \(time)}]") }
            var text = lines.joined(separator: "\n") + "\n"
            if rng.next() % 100 < 30, !text.isEmpty {
                var scalars = Array(text.unicodeScalars)
                let at = Int(rng.next() % UInt64(scalars.count))
                scalars.insert(contentsOf: rng.pick(pieces).unicodeScalars, at: at)
                text = String(String.UnicodeScalarView(scalars))
            }
            do {
                let program = try SavedPrograms.check(text)
                #expect(!program.phases.isEmpty, "seed \(seed)")
                saved = try saved.saving(text, configured: []).saved
                #expect(try SavedPrograms.load(saved.text, file: "f") == saved, "seed \(seed)")
            } catch {
                refused += 1
                let line = error.description
                #expect(line.hasPrefix("program: "), "seed \(seed): \(line)")
                #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "seed \(seed): one line: \(line)")
            }
        }
        #expect(refused > 100 && refused < 800, "seed \(seed): the corpus has both kinds (\(refused) refused)")
    }
}
