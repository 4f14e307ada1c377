import Foundation
import Testing

/// The example blocks of the man pages (`.EX` … `.EE` and `.nf` … `.fi`), each run or checked
/// as its roff comment `.\" doctest: …` just before it says:
///
/// - `run` (or `run after: SETUP`, SETUP run first in the same directory): each line is a
///   command (a line ending in `\` or `|` goes on on the next), run as a doctest command with
///   any output that must exit 0;
/// - `output of: CMD` (optionally ending in `[exit N]`): the block is what CMD prints, compared
///   as a doctest's expected output (a line `...` matches any lines);
/// - `toml`, `toml board`, `toml invalid`, `toml speaker`: through `check-config` as the pages'
///   ```` ```toml ```` blocks;
/// - `not run: REASON`: not run, with the reason (hardware, root, the network, a server that
///   runs until stopped).
///
/// In every block the installed package's board files (`/usr/share/roundclock/boards/`) are
/// read from the checkout's `boards/`: the one path the doc tests rewrite.
@Suite(.serialized) struct ManPageExampleTests {
    static let pages = ["roundclock.1", "roundclock.toml.5", "roundclock-gateway.1"]

    @Test("man page examples run and print what the page says", arguments: pages)
    func examples(page: String) async throws {
        let blocks = ManExample.blocks(try ManPageTools.source(page))
        #expect(!blocks.isEmpty, "man/\(page) has no .EX/.EE or .nf/.fi block: the extraction is out of date")
        for block in blocks {
            let place = "man/\(page):\(block.line)"
            switch block.mark {
            case .run(let setup):
                try await DoctestRunner.run(block.commands, where: "man/\(page)", setup: setup)
            case .outputOf(let command, let status):
                try await DoctestRunner.run([DoctestCommand(line: block.line, command: command, expected: block.lines, exitStatus: status)],
                                            where: "man/\(page)")
            case .toml(let marks):
                guard marks.isSubset(of: TOMLBlockCheck.marks) else {
                    Issue.record("\(place): doctest: toml \(marks.sorted().joined(separator: " ")): marked with nothing, board, invalid or speaker")
                    continue
                }
                try await TOMLBlockCheck.run(block.lines.joined(separator: "\n") + "\n", marks: marks, where: place,
                                             info: "toml " + marks.sorted().joined(separator: " "), in: try DocsScratch())
            case .notRun:
                continue
            case .unmarked(let comment):
                Issue.record("\(place): an example block without a valid `.\\\" doctest: run | output of: CMD | toml … | not run: REASON` before it\(comment.map { " (found: \($0))" } ?? "")")
            }
        }
    }

    @Test("the man pages' examples: the count run or checked, and why each other one is not")
    func countsRunAndNotRun() throws {
        var ran = 0
        var notRun: [String] = []
        for page in Self.pages {
            for block in ManExample.blocks(try ManPageTools.source(page)) {
                if case .notRun(let reason) = block.mark {
                    notRun.append("man/\(page):\(block.line): \(reason)")
                } else {
                    ran += 1
                }
            }
        }
        print("man page examples: \(ran) run or checked, \(notRun.count) marked not run\n  " + notRun.joined(separator: "\n  "))
        #expect(ran >= 6, "only \(ran) man page examples run or are checked: the extraction or the marks are out of date")
    }

    @Test func extraction() {
        let roff = #"""
            .SH EXAMPLES
            .\" doctest: run after: : > my.toml
            .EX
            roundclock run \-\-config my.toml \e
                \-\-until 1
            echo \(aq{"command": "start"}\(aq |
                cat
            .EE
            .\" doctest: output of: roundclock check\-config bad.toml [exit 78]
            .nf
            roundclock: bad.toml: ...
            .fi
            .EX
            not marked
            .EE
            """#
        let blocks = ManExample.blocks(roff)
        #expect(blocks.map(\.mark) == [.run(setup: ": > my.toml"), .outputOf(command: "roundclock check-config bad.toml", status: 78),
                                       .unmarked(nil)])
        #expect(blocks[0].commands.map(\.command) == ["roundclock run --config my.toml \\\n    --until 1",
                                                      "echo '{\"command\": \"start\"}' |\n    cat"])
        #expect(blocks[1].lines == ["roundclock: bad.toml: ..."])
    }
}

/// One example block of a man page as plain text, with what its doctest comment says.
struct ManExample {
    enum Mark: Equatable {
        case run(setup: String?)
        case outputOf(command: String, status: Int32)
        case toml(Set<String>)
        case notRun(reason: String)
        /// No comment, or one that says none of the above (shown).
        case unmarked(String?)

        init(_ comment: String?) {
            guard let comment else { self = .unmarked(nil); return }
            let words = comment.split(separator: " ").map(String.init)
            if comment == "run" {
                self = .run(setup: nil)
            } else if comment.hasPrefix("run after: ") {
                self = .run(setup: String(comment.dropFirst("run after: ".count)))
            } else if comment.hasPrefix("output of: ") {
                var command = String(comment.dropFirst("output of: ".count))
                var status: Int32 = 0
                if let match = command.firstMatch(of: /\s\[exit ([0-9]+)\]$/), let value = Int32(match.1) {
                    status = value
                    command.removeSubrange(match.range)
                }
                self = .outputOf(command: command, status: status)
            } else if words.first == "toml" {
                self = .toml(Set(words.dropFirst()))
            } else if comment.hasPrefix("not run: "), words.count >= 4 {
                self = .notRun(reason: words.dropFirst(2).joined(separator: " "))
            } else {
                self = .unmarked(comment)
            }
        }
    }

    /// The line of `.EX` or `.nf`.
    var line: Int
    var mark: Mark
    /// The block's lines as a reader sees them (roff escapes undone, the installed boards
    /// read from the checkout).
    var lines: [String]

    /// The commands of a `run` block: a line ending in ` \` or ` |` goes on on the next.
    var commands: [DoctestCommand] {
        var commands: [DoctestCommand] = []
        var continues = false
        for (offset, text) in lines.enumerated() {
            if continues, let last = commands.indices.last {
                commands[last].command += "\n" + text
            } else if !text.trimmingCharacters(in: .whitespaces).isEmpty {
                commands.append(DoctestCommand(line: line + 1 + offset, command: text, expected: [], exitStatus: 0))
            }
            continues = text.hasSuffix(" \\") || text.hasSuffix(" |")
        }
        return commands
    }

    /// Every `.EX`/`.EE` and `.nf`/`.fi` block of a roff source, each with the last
    /// `.\" doctest:` comment between the block before it and its start.
    static func blocks(_ roff: String) -> [ManExample] {
        var blocks: [ManExample] = []
        var comment: String?
        var open: ManExample?
        for (index, line) in roff.components(separatedBy: "\n").enumerated() {
            if var current = open {
                if line == ".EE" || line == ".fi" {
                    blocks.append(current)
                    open = nil
                } else {
                    current.lines.append(plain(line))
                    open = current
                }
            } else if line == ".EX" || line == ".nf" {
                open = ManExample(line: index + 1, mark: Mark(comment), lines: [])
                comment = nil
            } else if line.hasPrefix(#".\" doctest:"#) {
                comment = plain(String(line.dropFirst(#".\" doctest:"#.count))).trimmingCharacters(in: .whitespaces)
            }
        }
        return blocks
    }

    /// A line of roff as the reader sees it: escapes undone.
    static func plain(_ roff: String) -> String {
        var text = ManPageTools.plain(roff)
        for (escape, character) in [("\\(aq", "'"), ("\\(dq", "\""), ("\\(ga", "`"), ("\\(ti", "~"), ("\\(ha", "^"), ("\\~", " ")] {
            text = text.replacingOccurrences(of: escape, with: character)
        }
        return text.replacingOccurrences(of: "/usr/share/roundclock/boards/", with: "boards/")
    }
}
