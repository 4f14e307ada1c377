import Foundation
import Testing

/// Statements of the docs checked against the built binaries where no doctest can show them.
@Suite struct DocClaimsTests {
    /// The page's text with its line breaks and runs of white space made single spaces, so
    /// that a sentence is found wherever it wraps.
    static func flat(_ file: String) throws -> String {
        try DocsRepo.text(file).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// (page, a statement the binary contradicts, what the binary does and where it is shown).
    static let contradicted: [(String, String, String)] = [
        ("docs/configuration.md", "not by `check-config`",
         "check-config opens [sound]'s device and exits 78 without it (the doctest under sound.device)"),
        ("docs/command-line.md", "`--plain`: the bytes only",
         "render --plain prints the hex, the state line and the art (the doctest under render)"),
        ("docs/command-line.md", "Only its `[sound]` is used",
         "simulate --config speaks its [voice] callouts into the track too (simulate --help)"),
        ("docs/sound-voice-and-lights.md", "`hw:CARD=",
         "a USB speaker is `plughw:CARD=Device`: the clock plays 16-bit samples only, plughw converts them"),
    ]

    @Test("no page says what the binary contradicts", arguments: contradicted.indices)
    func noContradiction(index: Int) throws {
        let (file, statement, truth) = Self.contradicted[index]
        #expect(!(try Self.flat(file)).contains(statement), "\(file) says \(statement); but \(truth)")
    }

    @Test("command-line.md's synopsis names every roundclock-bench subcommand")
    func benchSynopsis() async throws {
        let bench = DocsRepo.binDirectory.appendingPathComponent("roundclock-bench")
        let help = try await ManPageTools.run(bench, ["--help"])
        let subcommands = ManPageTools.subcommands(inHelp: help.stdout).filter { $0 != "help" }
        #expect(subcommands.contains("sound-onsets"), "roundclock-bench --help lists \(subcommands)")
        let page = try DocsRepo.text("docs/command-line.md")
        let synopsis = try #require(page.range(of: "roundclock-bench (").map { String(page[$0.lowerBound...].prefix { $0 != ")" }) })
        let named = synopsis.dropFirst("roundclock-bench (".count).split(separator: "|").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(Set(named) == Set(subcommands), "docs/command-line.md's synopsis names \(named); roundclock-bench has \(subcommands)")
    }

    @Test("command-line.md's exit 73 names each output that exits 73")
    func exitSeventyThree() async throws {
        let scratch = try DocsScratch()
        let run = try await DocsShell.run(DocsRepo.roundclock, ["simulate", "--virtual", "--no-tty", "--program", "countdown:0:02",
                                                                 "--sound-file", "no-such-dir/track.wav"], in: scratch.url)
        #expect(run.status == 73, "simulate --sound-file into a missing directory: exit \(run.status): \(run.output)")
        let page = try Self.flat("docs/command-line.md")
        let row = try #require(page.range(of: "**73** EX_CANTCREAT:").map { String(page[$0.upperBound...].prefix(200)) })
        #expect(row.contains("`--sound-file`"), "docs/command-line.md's 73 row does not name --sound-file: \(row)")
    }

    @Test("mqtt-home-assistant.md names the oldest Home Assistant that takes the clock's states")
    func homeAssistantMinimum() throws {
        let page = try Self.flat("docs/mqtt-home-assistant.md")
        #expect(page.contains("**Home Assistant** 2024.10 or newer: older releases log an \"Invalid state message\""),
                "docs/mqtt-home-assistant.md does not say Home Assistant 2024.10 or newer is needed, and why")
    }

    @Test("README's main command says how to stop it and how to run it in a moment")
    func readmeMainCommand() throws {
        let readme = try Self.flat("README.md")
        #expect(readme.contains("Ctrl-C stops it"), "README.md does not say that Ctrl-C stops scripts/simulate")
        #expect(readme.contains("`scripts/simulate --virtual` runs it in a moment"),
                "README.md does not say that --virtual runs the session in a moment")
        let setUp = MarkdownPage(path: "README.md", text: try DocsRepo.text("README.md")).blocks.first { $0.language == "sh" }
        #expect(setUp?.lines.count == 2, "README.md's set-up block has exactly two commands: \(setUp?.lines ?? [])")
    }
}
