import ArgumentParser
import RoundClockConfig
import SegmentDisplay
import Simulation

/// `roundclock render --display KIND TEXT`: the 16 display RAM bytes for TEXT, then the art.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the HT16K33 display RAM for TEXT on a backpack, then draw it.",
        discussion: """
            The first line is the 16 RAM bytes as 32 lowercase hex digits (register 0x00 first). \
            Text shorter than the panel is right-aligned; ':' lights the colon, '.' the point of the previous digit.
            """)

    @Option(help: "Backpack: \(LayoutKind.allCases.map(\.rawValue).joined(separator: ", ")), or a layout of --board.")
    var display: String

    @Option(help: "Board file whose [layouts.NAME] --display may name (custom-wired panels).")
    var board: String?

    /// Every argument that is not an option, so that text starting with `-` (`-1:05`) is
    /// text, not an unknown option; exactly one is allowed (`--` before it works too).
    @Argument(parsing: .allUnrecognized, help: "The text to show, e.g. \" 2:58\", WORK or -1:05.")
    var texts: [String] = []

    /// The texts given, without a `--` that ends the options.
    var givenTexts: [String] { texts.first == "--" ? Array(texts.dropFirst()) : texts }

    /// The one text given.
    var text: String { givenTexts.first ?? "" }

    @Flag(help: "Plain ASCII art even on a terminal.")
    var plain = false

    /// Without --board, checked while parsing; with it, in `run` (after reading the file).
    func validate() throws {
        if board == nil { _ = try frame(layouts: []) }
    }

    /// The custom layouts of `--board`; a bad board file is a usage error (64), as for
    /// `simulate --board` (docs/command-line.md).
    func boardLayouts() throws -> [LayoutKind] {
        guard let board else { return [] }
        do {
            return try BoardFile.load(board).layouts
        } catch {
            throw ValidationError(error.description)
        }
    }

    func frame(layouts: [LayoutKind]) throws -> Frame {
        let texts = givenTexts
        if self.texts.first != "--", let option = texts.first(where: { $0.hasPrefix("--") && $0.dropFirst(2).first?.isLetter == true }) {
            throw ValidationError("unknown option \"\(option)\" (text that starts with \"--\" goes after \"--\")")
        }
        guard texts.count == 1 else {
            throw ValidationError(texts.isEmpty ? "missing TEXT: give the text to show, e.g. \" 2:58\"" : "give one TEXT, got \(texts.count): \(texts.map { "\"\($0)\"" }.joined(separator: " ")) (quote text with spaces)")
        }
        let kinds = LayoutKind.allCases + layouts
        guard let kind = kinds.first(where: { $0.rawValue == display }) else {
            throw ValidationError("unknown --display \"\(display)\": use one of \(kinds.map(\.rawValue).joined(separator: ", "))")
        }
        do { return try Frame(text, kind: kind) } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        let frame = try frame(layouts: try boardLayouts())
        let ram = frame.ram()
        print(ramHex(ram))
        print(renderArt(kind: frame.kind, ram: ram, style: plain ? .plain : RenderStyle.detect()))
    }
}
