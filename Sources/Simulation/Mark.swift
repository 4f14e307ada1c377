/// One character cell of panel art: what it depicts and whether it is lit.
struct Mark: Equatable {
    enum Shape: Equatable {
        case blank, horizontal, vertical, slash, backslash, dot, pixel
    }

    var shape: Shape
    var lit: Bool

    static let blank = Mark(shape: .blank, lit: false)

    /// The character drawn for this mark (colour is applied separately).
    func character(_ style: RenderStyle) -> Character {
        switch (style, shape, lit) {
        case (_, .blank, _): " "
        case (.plain, .pixel, false): "."
        case (.plain, _, false): " "
        case (.plain, .horizontal, true): "-"
        case (.plain, .vertical, true): "|"
        case (.plain, .slash, true): "/"
        case (.plain, .backslash, true): "\\"
        case (.plain, .dot, true): "o"
        case (.plain, .pixel, true): "#"
        case (.ansi, .horizontal, _): "━"
        case (.ansi, .vertical, _): "┃"
        case (.ansi, .slash, _): "╱"
        case (.ansi, .backslash, _): "╲"
        case (.ansi, .dot, _): "●"
        case (.ansi, .pixel, true): "●"
        case (.ansi, .pixel, false): "·"
        }
    }
}

/// ANSI 256-colour shades.
enum Shade {
    /// Lit colour for dimming level 0...15: the red axis of the 6x6x6 colour cube
    /// (16 + 36 r), r = 1 + level * 4 / 15, so level 0 is a deep red (52) and
    /// level 15 full red (196).
    static func lit(brightness: UInt8) -> Int {
        16 + 36 * (1 + Int(min(brightness, 15)) * 4 / 15)
    }

    /// Unlit ("ghost") segments: grey 236.
    static let unlit = 236

    static func escape(_ colour: Int) -> String {
        "\u{1B}[38;5;\(colour)m"
    }

    static let reset = "\u{1B}[0m"
}

/// Lines of marks, turned into text for a style.
struct Canvas {
    var rows: [[Mark]]

    init(height: Int) {
        rows = Array(repeating: [], count: height)
    }

    /// Appends `block` (same height) to the right.
    mutating func append(_ block: [[Mark]]) {
        for index in rows.indices { rows[index] += block[index] }
    }

    func render(_ style: RenderStyle, brightness: UInt8) -> [String] {
        rows.map { row in
            var line = ""
            var colour: Int?
            for mark in row {
                let character = mark.character(style)
                if style == .ansi {
                    let wanted: Int? = mark.shape == .blank ? nil
                        : (mark.lit ? Shade.lit(brightness: brightness) : Shade.unlit)
                    if wanted != colour, let wanted {
                        line += Shade.escape(wanted)
                        colour = wanted
                    }
                }
                line.append(character)
            }
            if colour != nil { line += Shade.reset }
            return trimmedRight(line)
        }
    }

    private func trimmedRight(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }
}
