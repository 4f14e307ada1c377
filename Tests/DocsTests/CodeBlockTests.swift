import Foundation
import Testing

/// One command of a ```` ```console doctest ```` block and what it must print.
struct DoctestCommand: Equatable {
    /// The line of its `$ `.
    var line: Int
    /// The command as bash gets it (continuation lines joined by backslash-newline).
    var command: String
    /// The expected output lines (stdout and stderr together); `...` matches any lines.
    var expected: [String]
    /// From a last expected line `[exit N]`; 0 without one.
    var exitStatus: Int32

    /// The commands of a block: a line `$ CMD` starts one (a line ending in ` \` continues
    /// it on the next line), the lines up to the next `$ ` are its expected output. Text
    /// before the first command is an error: every line of a runnable block means something.
    static func parse(_ block: MarkdownPage.CodeBlock) throws(DoctestSyntaxError) -> [DoctestCommand] {
        var commands: [DoctestCommand] = []
        var index = 0
        while index < block.lines.count {
            let line = block.lines[index]
            let number = block.firstLine + index
            guard line.hasPrefix("$ ") else {
                guard let last = commands.indices.last else {
                    if line.trimmingCharacters(in: .whitespaces).isEmpty { index += 1; continue }
                    throw DoctestSyntaxError(line: number, message: "expected a command line starting with \"$ \", found \(line)")
                }
                commands[last].expected.append(line)
                index += 1
                continue
            }
            var command = String(line.dropFirst(2))
            while command.hasSuffix(" \\"), index + 1 < block.lines.count {
                index += 1
                command += "\n" + block.lines[index]
            }
            commands.append(DoctestCommand(line: number, command: command, expected: [], exitStatus: 0))
            index += 1
        }
        for i in commands.indices {
            while commands[i].expected.last?.trimmingCharacters(in: .whitespaces).isEmpty == true {
                commands[i].expected.removeLast()
            }
            if let last = commands[i].expected.last, last.hasPrefix("[exit "), last.hasSuffix("]") {
                guard let status = Int32(last.dropFirst(6).dropLast()) else {
                    throw DoctestSyntaxError(line: commands[i].line, message: "\(last) is not [exit N] with a number N")
                }
                commands[i].exitStatus = status
                commands[i].expected.removeLast()
            }
        }
        return commands
    }

    /// Whether `actual` is what `expected` says, line by line with trailing white space
    /// ignored; a line `...` stands for any number of lines, none included.
    static func matches(expected: [String], actual: [String]) -> Bool {
        let e = expected.map(trimmedEnd), a = actual.map(trimmedEnd)
        // matched[i][j]: e[i...] matches a[j...].
        var matched = Array(repeating: Array(repeating: false, count: a.count + 1), count: e.count + 1)
        matched[e.count][a.count] = true
        for i in stride(from: e.count - 1, through: 0, by: -1) {
            for j in stride(from: a.count, through: 0, by: -1) {
                if e[i] == "..." {
                    matched[i][j] = matched[i + 1][j] || (j < a.count && matched[i][j + 1])
                } else {
                    matched[i][j] = j < a.count && e[i] == a[j] && matched[i + 1][j + 1]
                }
            }
        }
        return matched[0][0]
    }

    static func trimmedEnd(_ line: String) -> String {
        var line = Substring(line)
        while let last = line.last, last == " " || last == "\t" || last == "\r" { line.removeLast() }
        return String(line)
    }

    /// Output as lines: the final newline ends the last line, trailing blank lines dropped.
    static func lines(_ output: String) -> [String] {
        var lines = output.components(separatedBy: "\n")
        while lines.last.map({ trimmedEnd($0).isEmpty }) == true { lines.removeLast() }
        return lines
    }
}

struct DoctestSyntaxError: Error, CustomStringConvertible {
    var line: Int
    var message: String
    var description: String { "line \(line): \(message)" }
}

/// Every code block the doc tests run or check, in README.md and docs/**/*.md:
/// ```` ```console doctest ```` runs, ```` ```console not-run: REASON ```` says why it does
/// not (every console block is one of the two); ```` ```toml ````, ```` ```toml board ````,
/// ```` ```toml invalid ```` and ```` ```toml speaker ```` go through `roundclock check-config`.
@Suite(.serialized) struct CodeBlockTests {
    @Test("console doctest blocks print what the page says", arguments: DocsRepo.markdownFiles)
    func consoleDoctests(file: String) async throws {
        let page = MarkdownPage(path: file, text: try DocsRepo.text(file))
        for block in page.blocks where block.info.contains("doctest") {
            guard block.language == "console" else {
                Issue.record("\(file):\(block.line): `doctest` is for ```console blocks; this one is ```\(block.info.joined(separator: " "))")
                continue
            }
            let commands: [DoctestCommand]
            do throws(DoctestSyntaxError) { commands = try DoctestCommand.parse(block) } catch {
                Issue.record("\(file):\(error.line): \(error.message)")
                continue
            }
            if commands.isEmpty { Issue.record("\(file):\(block.line): a doctest block without a command (\"$ ...\")") }
            try await DoctestRunner.run(commands, where: file)
        }
    }

    /// What a ```` ```console ```` block's info string says: `doctest` runs it; `not-run:`
    /// followed by a reason (at least two words) leaves it out and says why.
    enum ConsoleMark: Equatable {
        case doctest
        case notRun(reason: String)
        case unmarked

        init(_ info: [String]) {
            if info.contains("doctest") {
                self = .doctest
            } else if let index = info.firstIndex(of: "not-run:"), info.count - index > 2 {
                self = .notRun(reason: info[(index + 1)...].joined(separator: " "))
            } else {
                self = .unmarked
            }
        }
    }

    @Test("every console block of README.md and docs/ runs, or says why it does not")
    func everyConsoleBlockRunsOrSaysWhyNot() throws {
        var ran = 0
        var notRun: [String] = []
        for file in DocsRepo.markdownFiles {
            for block in MarkdownPage(path: file, text: try DocsRepo.text(file)).blocks where block.language == "console" {
                switch ConsoleMark(block.info) {
                case .doctest: ran += 1
                case .notRun(let reason): notRun.append("\(file):\(block.line): \(reason)")
                case .unmarked:
                    Issue.record("\(file):\(block.line): ```\(block.info.joined(separator: " ")): a console block is `console doctest` (run and compared) or `console not-run: REASON`")
                }
            }
        }
        print("console blocks of README.md and docs/: \(ran) run, \(notRun.count) marked not run\n  "
              + notRun.joined(separator: "\n  "))
        #expect(ran >= 15 && ran > 2 * notRun.count,
                "only \(ran) console blocks run against \(notRun.count) marked not run: the doc tests would check little")
    }

    @Test("toml blocks pass check-config (board: as a board file; invalid: must fail; speaker: but its device)",
          arguments: DocsRepo.markdownFiles)
    func tomlBlocks(file: String) async throws {
        let page = MarkdownPage(path: file, text: try DocsRepo.text(file))
        let tomlBlocks = page.blocks.filter { $0.language == "toml" }
        guard !tomlBlocks.isEmpty else { return }
        let scratch = try DocsScratch()
        for block in tomlBlocks {
            let marks = Set(block.info.dropFirst())
            guard marks.isSubset(of: TOMLBlockCheck.marks) else {
                Issue.record("\(file):\(block.line): ```\(block.info.joined(separator: " ")): a toml block is marked with nothing, board, invalid or speaker")
                continue
            }
            try await TOMLBlockCheck.run(block.lines.joined(separator: "\n") + "\n", marks: marks, where: "\(file):\(block.line)",
                                         info: block.info.joined(separator: " "), in: scratch)
        }
    }
}
