import ArgumentParser
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

    @Option(help: "Backpack: \(LayoutKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var display: String

    @Argument(help: "The text to show, e.g. \" 2:58\" or WORK.")
    var text: String

    @Flag(help: "Plain ASCII art even on a terminal.")
    var plain = false

    func validate() throws { _ = try frame() }

    func frame() throws -> Frame {
        guard let kind = LayoutKind(rawValue: display) else {
            throw ValidationError("unknown --display \"\(display)\": use one of \(LayoutKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        do { return try Frame(text, kind: kind) } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        let frame = try frame()
        let ram = frame.ram()
        print(ramHex(ram))
        print(renderArt(kind: frame.kind, ram: ram, style: plain ? .plain : RenderStyle.detect()))
    }
}
