import Foundation
import RoundClockConfig
import Testing

/// The key paths the parser reads, taken from the parser itself: a config file and a board
/// file that have every table are read with a `KeyPathRecorder`, which notes every key the
/// readers ask for (present in the file or not). The files below are not a list of keys: a
/// key added to the parser is asked for, so it is noted, without a change here; only a new
/// table must be added to them (the test says which).
enum ParserKeys {
    /// Every table of the config file once, both kinds of `[programs]` entry.
    static let config = """
        board = "simulator"
        program = "hiit"
        start_at = ["06:00"]

        [programs]
        hiit = "10 x 0:45/0:15"

        [programs.circuit]
        intervals = [ { label = "WALL", time = "1:00" } ]

        [buttons]
        [buzzer]
        [sound]
        [sound.prep_tick]
        [sound.start]
        [sound.warning]
        [sound.end]
        [sound.finish]
        [sound.tick]
        [sound.halfway]
        [sound.switch]
        [sound.class_start]
        [voice]
        [horn]
        [brightness]
        [idle]
        [display]
        [resume]
        [remote]
        display_colors = {}
        [mqtt]

        [sync]
        group = "ring1"
        [system]
        [wifi]
        ssid = "GymFloor"
        """

    /// Every table of a board file once, a layout in each font.
    static let board = """
        name = "every-table"

        [i2c]

        [layouts.big7]
        font = "7-segment"
        digits = [
            { com = 0, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g = 6, dp = 7 },
            { com = 1, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g = 6, dp = 7 },
            { com = 2, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g = 6, dp = 7 },
            { com = 3, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g = 6, dp = 7 },
        ]
        colons = [ { after = 2, com = 6, rows = [0, 1] } ]

        [layouts.alpha]
        font = "14-segment"
        digits = [
            { com = 0, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g1 = 6, g2 = 7, h = 8, j = 9, k = 10, l = 11, m = 12, n = 13, dp = 14 },
            { com = 1, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g1 = 6, g2 = 7, h = 8, j = 9, k = 10, l = 11, m = 12, n = 13, dp = 14 },
            { com = 2, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g1 = 6, g2 = 7, h = 8, j = 9, k = 10, l = 11, m = 12, n = 13, dp = 14 },
            { com = 3, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g1 = 6, g2 = 7, h = 8, j = 9, k = 10, l = 11, m = 12, n = 13, dp = 14 },
        ]

        [[panels]]
        role = "time"
        kind = "big7"
        address = 0x70

        [[panels]]
        role = "phase"
        kind = "alpha"
        address = 0x71

        [buttons]

        [buzzer]
        line = "GPIO18"

        [lights]
        work = "GPIO23"

        [horn]
        line = "GPIO26"
        """

    static func recorded(_ read: (KeyPathRecorder) throws -> Void, what: String) throws -> Set<String> {
        let recorder = KeyPathRecorder()
        try read(recorder)
        #expect(recorder.missingTables.isEmpty, """
            the \(what) in Tests/DocsTests/ConfigurationReferenceTests.swift lacks \
            \(recorder.missingTables.sorted().joined(separator: ", ")) (or has it empty): add it, so that the keys \
            the parser reads in it are compared with the reference
            """)
        return recorder.keys
    }

    static func configKeys() throws -> Set<String> {
        try recorded({ _ = try Config.parse(config, file: "every-table.toml", recorder: $0) }, what: "config file")
    }

    static func boardKeys() throws -> Set<String> {
        try recorded({ _ = try BoardFile.parse(board, file: "every-table-board.toml", recorder: $0) }, what: "board file")
    }
}

/// The keys docs/configuration.md documents. A `### ` heading names one key in a code span,
/// or several (`` `buzzer.start_ms` ``, `` `.end_ms` ``: a span starting with `.` replaces
/// the last part of the span before it). Headings under a `## ` heading that starts with
/// "Board file" are keys of board files, the others keys of the config file.
struct ReferencePage {
    struct Key {
        var path: String
        var line: Int
        /// The lines from its heading to the next heading.
        var body: [String]
    }

    var configKeys: [Key] = []
    var boardKeys: [Key] = []
    var problems: [String] = []

    static let file = "docs/configuration.md"

    init(text: String) {
        let page = MarkdownPage(path: Self.file, text: text)
        let inBlock = Set(page.blocks.flatMap { block in block.line...(block.line + block.lines.count + 1) })
        var board = false
        for (index, heading) in page.headings.enumerated() {
            if heading.level == 2 { board = heading.text.lowercased().hasPrefix("board file") }
            guard heading.level == 3 else { continue }
            let spans = MarkdownPage.codeSpans(heading.text)
            guard !spans.isEmpty else { continue }
            let end = index + 1 < page.headings.count ? page.headings[index + 1].line - 1 : page.lines.count
            let body = (heading.line..<end).filter { !inBlock.contains($0 + 1) }.map { page.lines[$0] }
            var previous: String?
            for span in spans {
                var path = span
                if span.hasPrefix(".") {
                    guard let base = previous, let dot = base.lastIndex(of: ".") else {
                        problems.append("\(Self.file):\(heading.line): \(span) has no key path before it to be relative to")
                        continue
                    }
                    path = String(base[..<dot]) + span
                }
                previous = path
                let key = Key(path: path, line: heading.line, body: body)
                if board { boardKeys.append(key) } else { configKeys.append(key) }
            }
        }
    }
}

@Suite struct ConfigurationReferenceTests {
    /// Both sets, with what differs said both ways.
    static func difference(page: [String], parser: Set<String>, where place: String) -> String? {
        let documented = Set(page)
        let missing = parser.subtracting(documented).sorted()
        let extra = documented.subtracting(parser).sorted()
        guard !missing.isEmpty || !extra.isEmpty else { return nil }
        var lines = ["\(place) and the parser disagree:"]
        if !missing.isEmpty { lines.append("  read by the parser but not documented: \(missing.joined(separator: ", "))") }
        if !extra.isEmpty { lines.append("  documented but not read by the parser: \(extra.joined(separator: ", "))") }
        return lines.joined(separator: "\n")
    }

    @Test("the recorded keys use the reference's notation")
    func notation() throws {
        let config = try ParserKeys.configKeys(), board = try ParserKeys.boardKeys()
        for key in ["program", "display.cadence", "programs.<name>", "programs.<name>.intervals", "programs.<name>.intervals[].label",
                    "buzzer.prep_tick_ms", "horn.start_ms", "sync.group", "mqtt.keepalive", "remote.pin"] {
            #expect(config.contains(key), "\(key)")
        }
        for key in ["name", "i2c.bus", "panels", "panels[].role", "layouts.<name>.digits[].g2", "layouts.<name>.colons[].rows",
                    "buttons.start", "buzzer.line", "lights.warn", "horn.line"] {
            #expect(board.contains(key), "\(key)")
        }
    }

    @Test("docs/configuration.md documents exactly the keys the parser reads")
    func configurationPage() throws {
        let page = ReferencePage(text: try DocsRepo.text(ReferencePage.file))
        for problem in page.problems { Issue.record(Comment(rawValue: problem)) }
        let configPaths = page.configKeys.map(\.path), boardPaths = page.boardKeys.map(\.path)
        for (paths, what) in [(configPaths, "config file"), (boardPaths, "board file")] {
            let repeated = Dictionary(grouping: paths, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            #expect(repeated.isEmpty, "\(ReferencePage.file): \(what) keys documented twice: \(repeated.joined(separator: ", "))")
        }
        if let difference = Self.difference(page: configPaths, parser: try ParserKeys.configKeys(),
                                            where: "\(ReferencePage.file) (config file keys)") {
            Issue.record(Comment(rawValue: difference))
        }
        if let difference = Self.difference(page: boardPaths, parser: try ParserKeys.boardKeys(),
                                            where: "\(ReferencePage.file) (board file keys, under \"## Board file ...\")") {
            Issue.record(Comment(rawValue: difference))
        }
    }

    @Test("every key on docs/configuration.md gives its type and its default")
    func typeAndDefault() throws {
        let page = ReferencePage(text: try DocsRepo.text(ReferencePage.file))
        for key in page.configKeys + page.boardKeys {
            let body = key.body.joined(separator: "\n")
            #expect(body.contains("Type:") && body.contains("Default:"),
                    "\(ReferencePage.file):\(key.line): \(key.path): say \"Type: ...\" and \"Default: ...\" under its heading")
        }
    }

    /// man/roundclock.toml.5: each key is a `.TP` paragraph tagged `.B <key path>`; the keys
    /// after `.SH BOARD FILES` are board file keys, the others config file keys.
    @Test("man/roundclock.toml.5 documents exactly the keys the parser reads")
    func manPage() throws {
        let file = "man/roundclock.toml.5"
        guard DocsRepo.exists(file) else {
            Issue.record("\(file) does not exist; it documents every key of the config and board files")
            return
        }
        let lines = try DocsRepo.text(file).components(separatedBy: "\n")
        var configKeys: [String] = [], boardKeys: [String] = []
        var board = false
        for (index, line) in lines.enumerated() {
            if line.hasPrefix(".SH ") { board = Self.roffText(String(line.dropFirst(4))).uppercased() == "BOARD FILES" }
            guard line.trimmingCharacters(in: .whitespaces) == ".TP", index + 1 < lines.count, lines[index + 1].hasPrefix(".B ") else { continue }
            let key = Self.roffText(String(lines[index + 1].dropFirst(3)))
            if board { boardKeys.append(key) } else { configKeys.append(key) }
        }
        if let difference = Self.difference(page: configKeys, parser: try ParserKeys.configKeys(), where: "\(file) (config file keys)") {
            Issue.record(Comment(rawValue: difference))
        }
        if let difference = Self.difference(page: boardKeys, parser: try ParserKeys.boardKeys(),
                                            where: "\(file) (board file keys, under .SH BOARD FILES)") {
            Issue.record(Comment(rawValue: difference))
        }
    }

    /// The text of a roff argument: quotes dropped, `\-`, `\&`, `\e` and font escapes undone.
    static func roffText(_ argument: String) -> String {
        var text = argument.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        text = text.replacingOccurrences(of: #"\\f(\[[^\]]*\]|\(..|.)"#, with: "", options: .regularExpression)
        for (escape, plain) in [("\\-", "-"), ("\\&", ""), ("\\e", "\\"), ("\\(lq", "\""), ("\\(rq", "\""), ("\\.", ".")] {
            text = text.replacingOccurrences(of: escape, with: plain)
        }
        return text
    }
}
