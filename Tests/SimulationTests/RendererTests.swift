import HT16K33
import SegmentDisplay
import Simulation
import Testing

@Suite("Terminal renderer")
struct RendererTests {
    @Test func plainSevenSegmentArt() throws {
        let ram = try Frame("12:34", kind: .seg7x4).ram()
        let art = renderArt(kind: .seg7x4, ram: ram)
        let lines = art.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 6)
        #expect(lines[0] == "[seg7x4] brightness 15/15, blink off")
        #expect(lines[1] == "        ---      ---")
        #expect(lines[2] == "    |      |  o     |  |   |")
        #expect(lines[3] == "        ---      ---    ---")
        #expect(lines[4] == "    |  |      o     |      |")
        #expect(lines[5] == "        ---      ---")
        #expect(!art.contains("\u{1B}"))
    }

    @Test func decimalPointIsDrawn() throws {
        let art = renderArt(kind: .seg7x4, ram: try Frame(" 3.12", kind: .seg7x4).ram())
        #expect(art.split(separator: "\n")[5].contains("o"))
    }

    @Test("every kind renders with the expected number of lines", arguments: [
        (LayoutKind.seg7x4, "12:34", 6), (.bigseg7x4, "12:34", 6), (.seg14x4, "WORK", 6),
        (.matrix8x8, "42", 9), (.matrix16x8, "88:88", 9),
    ])
    func shapes(_ kind: LayoutKind, _ text: String, _ lineCount: Int) throws {
        let art = renderArt(kind: kind, ram: try Frame(text, kind: kind).ram(), label: "front")
        let lines = art.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == lineCount)
        #expect(lines[0].hasPrefix("[front]"))
        #expect(lines.dropFirst().contains { $0.contains(kind.isMatrix ? "#" : "-") })
    }

    @Test func matrixDotGrid() throws {
        let art = renderArt(kind: .matrix8x8, ram: try Frame("10", kind: .matrix8x8).ram())
        let lines = art.split(separator: "\n").map(String.init)
        #expect(lines[1] == ". # . . . # # #")
        #expect(lines[8] == ". . . . . . . .")
    }

    @Test func dimmedAndBrightDifferInANSI() throws {
        let ram = try Frame("88:88", kind: .seg7x4).ram()
        let bright = renderArt(kind: .seg7x4, ram: ram, brightness: 15, style: .ansi)
        let dim = renderArt(kind: .seg7x4, ram: ram, brightness: 0, style: .ansi)
        #expect(bright != dim)
        #expect(bright.contains("\u{1B}[38;5;196m"))
        #expect(dim.contains("\u{1B}[38;5;52m"))
        #expect(bright.contains("━"))
    }

    @Test func blinkOffPhaseIsDark() throws {
        let ram = try Frame("88:88", kind: .seg7x4).ram()
        let on = renderArt(kind: .seg7x4, ram: ram, blink: .oneHertz, elapsed: .milliseconds(100))
        let off = renderArt(kind: .seg7x4, ram: ram, blink: .oneHertz, elapsed: .milliseconds(600))
        #expect(on.contains("---"))
        #expect(!off.contains("-"))
        #expect(off.hasSuffix("") && off.contains("(off phase)"))
        #expect(blinkIsOff(.twoHertz, at: .milliseconds(250)))
        #expect(!blinkIsOff(.halfHertz, at: .milliseconds(999)))
        #expect(!blinkIsOff(.off, at: .seconds(3)))
    }

    @Test func emulatedPanelOffThenOn() throws {
        let chip = EmulatedHT16K33(name: "0x70")
        let dark = renderPanel(chip, kind: .seg14x4)
        #expect(dark.contains("display off"))
        var driver = HT16K33Driver(device: chip)
        try driver.start(brightness: 4)
        try driver.commit(ram: Frame("REST", kind: .seg14x4).ram(), brightness: 4, blink: .off)
        let lit = renderPanel(chip, kind: .seg14x4, label: "alpha")
        #expect(lit.hasPrefix("[alpha] brightness 4/15, blink off"))
        #expect(lit.contains("|"))
    }
}
