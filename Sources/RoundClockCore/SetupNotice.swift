/// A setting the clock was asked to take and could not: the card's `roundclock.toml` that
/// `apply-card` refused. While the clock is ready and nobody has touched it, the panels say
/// so (`Err`, the file's line, `CARD`); the first button press or command gives them back to
/// the program. The phone page shows `message` for as long as the clock runs.
public struct SetupNotice: Sendable, Hashable {
    /// One line: the file, where in it and what is wrong.
    public var message: String
    /// The line of the file the message names, if it names one.
    public var line: Int?

    public init(message: String) {
        self.message = message
        self.line = Self.line(in: message)
    }

    /// `12` from `…: line 12, column 3: …` or `…: line 12: brightness.day: …`, the forms the
    /// configuration checker writes.
    static func line(in message: String) -> Int? {
        let marker = Array(": line ".utf8)
        let bytes = Array(message.utf8)
        guard bytes.count > marker.count,
              let start = (0...(bytes.count - marker.count)).first(where: { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
        else { return nil }
        let digits = bytes[(start + marker.count)...].prefix { $0 >= 0x30 && $0 <= 0x39 }.prefix(9)
        return digits.isEmpty ? nil : Int(String(decoding: digits, as: UTF8.self))
    }

    /// The panels' picture of the notice: `Err` on the time panel, the line (when known and
    /// it fits) on the round panel, `CARD` on the phase panel.
    public func face(brightness: UInt8, widths: PanelWidths = PanelWidths()) -> Face {
        let lineText = line.map(String.init).flatMap { $0.count <= widths.round ? $0 : nil } ?? ""
        let round = String(repeating: " ", count: max(0, widths.round - lineText.count)) + lineText
        let time = "ERR" + String(repeating: " ", count: max(0, widths.time - 3))
        var face = Face(time: PanelText(time), round: PanelText(round), phase: PanelText("CARD"))
        face.brightness = brightness
        return face
    }
}
