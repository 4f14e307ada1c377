/// RoundClock's bitmap font for the LED matrices: 3 columns x 7 rows, drawn from
/// row 0 (top). Wide enough for `88:88` on a 16x8 matrix and two digits on 8x8.
/// Adafruit's library has no matrix font, so this one is our own; only the pixel
/// to RAM mapping has to match Adafruit (see `PixelGrid`).
///
/// Glyphs: digits, space, `-` and `_`. Any other character is an error.
public enum MatrixFont {
    /// Glyph width in pixels.
    public static let width = 3
    /// Glyph height in pixels (rows 0...6; row 7 stays dark).
    public static let height = 7

    /// Glyph art, `#` = lit. Each glyph is distinct, so decoding is exact.
    static let art: [(Character, [String])] = [
        ("0", ["###", "#.#", "#.#", "#.#", "#.#", "#.#", "###"]),
        ("1", [".#.", "##.", ".#.", ".#.", ".#.", ".#.", "###"]),
        ("2", ["###", "..#", "..#", "###", "#..", "#..", "###"]),
        ("3", ["###", "..#", "..#", "###", "..#", "..#", "###"]),
        ("4", ["#.#", "#.#", "#.#", "###", "..#", "..#", "..#"]),
        ("5", ["###", "#..", "#..", "###", "..#", "..#", "###"]),
        ("6", ["###", "#..", "#..", "###", "#.#", "#.#", "###"]),
        ("7", ["###", "..#", "..#", "..#", "..#", "..#", "..#"]),
        ("8", ["###", "#.#", "#.#", "###", "#.#", "#.#", "###"]),
        ("9", ["###", "#.#", "#.#", "###", "..#", "..#", "###"]),
        ("-", ["...", "...", "...", "###", "...", "...", "..."]),
        ("_", ["...", "...", "...", "...", "...", "...", "###"]),
        (" ", ["...", "...", "...", "...", "...", "...", "..."]),
    ]

    /// A glyph as one row bitmask per row; bit c = column c (0 = left).
    public typealias Glyph = [UInt8]

    static let glyphByCharacter: [Character: Glyph] = {
        var map: [Character: Glyph] = [:]
        for (character, rows) in art {
            map[character] = rows.map { row in
                var bits: UInt8 = 0
                for (column, mark) in row.enumerated() where mark == "#" {
                    bits |= 1 << UInt8(column)
                }
                return bits
            }
        }
        return map
    }()

    static let characterByGlyph: [Glyph: Character] = {
        var map: [Glyph: Character] = [:]
        for (character, glyph) in glyphByCharacter { map[glyph] = character }
        return map
    }()

    /// The glyph for a character, or nil if the font has none.
    public static func glyph(for character: Character) -> Glyph? {
        glyphByCharacter[character]
    }

    /// Left column of each position and the colon column for a matrix kind.
    /// 16x8: digits at x = 0, 4, 9, 13, colon at x = 7 (rows 2 and 4).
    /// 8x8: digits at x = 0 and 5.
    static func columns(for kind: LayoutKind) -> (digits: [Int], colon: Int?) {
        kind == .matrix16x8 ? ([0, 4, 9, 13], 7) : ([0, 5], nil)
    }

    /// Rows of the two colon dots.
    static let colonRows = [2, 4]
}
