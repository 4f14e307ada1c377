import Foundation
import Testing

// The doc tests' own pieces: how a doctest block is read and matched, how anchors are made.
@Suite struct HarnessTests {
    static func block(_ text: String) -> MarkdownPage.CodeBlock {
        MarkdownPage(path: "t.md", text: "# T\n\n```console doctest\n" + text + "\n```\n").blocks[0]
    }

    @Test func commandsContinuationsAndExitStatus() throws {
        let commands = try DoctestCommand.parse(Self.block("""
            $ roundclock check-config \\
                bad.toml
            roundclock: bad.toml: ...
            [exit 78]
            $ true
            """))
        #expect(commands == [
            DoctestCommand(line: 4, command: "roundclock check-config \\\n    bad.toml", expected: ["roundclock: bad.toml: ..."],
                           exitStatus: 78),
            DoctestCommand(line: 8, command: "true", expected: [], exitStatus: 0),
        ])
    }

    @Test func textBeforeTheFirstCommandIsAnError() {
        #expect(throws: DoctestSyntaxError.self) { try DoctestCommand.parse(Self.block("output\n$ true")) }
    }

    @Test func ellipsisMatchesAnyNumberOfLines() {
        #expect(DoctestCommand.matches(expected: ["a", "...", "d"], actual: ["a", "b", "c", "d"]))
        #expect(DoctestCommand.matches(expected: ["a", "...", "d"], actual: ["a", "d"]))
        #expect(DoctestCommand.matches(expected: ["..."], actual: []))
        #expect(DoctestCommand.matches(expected: ["a  "], actual: ["a"]), "trailing white space is ignored")
        #expect(!DoctestCommand.matches(expected: ["a", "...", "d"], actual: ["a", "b", "c"]))
        #expect(!DoctestCommand.matches(expected: ["a"], actual: ["a", "b"]), "no line may be left over")
        #expect(!DoctestCommand.matches(expected: ["a ..."], actual: ["a b"]), "... stands for whole lines only")
    }

    @Test func githubAnchors() {
        #expect(MarkdownPage.slug("Install on a Raspberry Pi") == "install-on-a-raspberry-pi")
        #expect(MarkdownPage.slug("`display.cadence`") == "displaycadence")
        #expect(MarkdownPage.slug("Board file: `[layouts.<name>]`") == "board-file-layoutsname")
        #expect(MarkdownPage.slug("[Phone remote](remote.md) & MQTT") == "phone-remote--mqtt")
        let page = MarkdownPage(path: "t.md", text: "# A\n## Notes\n## Notes\n```sh\n# not a heading\n```\n")
        #expect(page.anchors == ["a", "notes", "notes-1"])
    }

    @Test func linksOutsideCodeOnly() {
        let page = MarkdownPage(path: "t.md", text: "# A\n\nSee [x](b.md#c), ![i](images/p.png) and `[y](z.md)`.\n```\n[w](v.md)\n```\n")
        #expect(page.links.map(\.target) == ["b.md#c", "images/p.png"])
    }

    @Test func aCommandThatFailsReportsItsStatusAndOutput() async throws {
        let scratch = try DocsScratch()
        let run = try await DocsShell.run("echo out; echo err >&2; exit 3", in: scratch.url)
        #expect(run.status == 3 && run.output == "out\nerr\n" && !run.timedOut)
        let boards = try await DocsShell.run("ls boards/pi4.toml && echo $TZ", in: scratch.url)
        #expect(boards.output == "boards/pi4.toml\nUTC\n", "the checkout's entries appear in the scratch directory")
    }
}
