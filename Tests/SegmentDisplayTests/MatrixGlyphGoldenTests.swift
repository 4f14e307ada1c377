import SegmentDisplay
import Testing

/// Every matrix glyph at every position, against RAM built from Adafruit's own pixel
/// mapping (the single-pixel vectors of Golden/adafruit-golden.txt) and the font art
/// frozen below. Adafruit has no matrix font, so this art is the specification: changing
/// a glyph in `MatrixFont` without changing it here fails.
@Suite struct MatrixGlyphGoldenTests {
    /// 3 x 7 art, `#` lit, row 0 at the top (docs/buttons-and-panels.md).
    static let art: [Character: [String]] = [
        "0": ["###", "#.#", "#.#", "#.#", "#.#", "#.#", "###"],
        "1": [".#.", "##.", ".#.", ".#.", ".#.", ".#.", "###"],
        "2": ["###", "..#", "..#", "###", "#..", "#..", "###"],
        "3": ["###", "..#", "..#", "###", "..#", "..#", "###"],
        "4": ["#.#", "#.#", "#.#", "###", "..#", "..#", "..#"],
        "5": ["###", "#..", "#..", "###", "..#", "..#", "###"],
        "6": ["###", "#..", "#..", "###", "#.#", "#.#", "###"],
        "7": ["###", "..#", "..#", "..#", "..#", "..#", "..#"],
        "8": ["###", "#.#", "#.#", "###", "#.#", "#.#", "###"],
        "9": ["###", "#.#", "#.#", "###", "..#", "..#", "###"],
        "-": ["...", "...", "...", "###", "...", "...", "..."],
        "_": ["...", "...", "...", "...", "...", "...", "###"],
    ]
    /// Left column of each digit position: 16x8 `88:88` with the colon at x = 7; 8x8 `88`.
    static let columns: [LayoutKind: [Int]] = [.matrix16x8: [0, 4, 9, 13], .matrix8x8: [0, 5]]

    /// Adafruit's RAM for one lit pixel, from the golden file.
    static let pixelRAM: [String: [UInt8]] = {
        var map: [String: [UInt8]] = [:]
        for vector in GoldenFile.vectors {
            if case let .pixels(pixels) = vector.input, pixels.count == 1 {
                map["\(vector.kind.rawValue) \(pixels[0].x),\(pixels[0].y)"] = vector.ram
            }
        }
        return map
    }()

    static let cases: [(LayoutKind, Character, Int)] = columns.keys.sorted { $0.rawValue < $1.rawValue }.flatMap { kind in
        art.keys.sorted().flatMap { glyph in columns[kind]!.indices.map { (kind, glyph, $0) } }
    }

    @Test("glyph at position matches Adafruit's pixel mapping", arguments: cases)
    func glyph(kind: LayoutKind, glyph: Character, position: Int) throws {
        #expect(Self.pixelRAM.count == 64 + 128, "all single-pixel vectors of both matrices are in the golden file")
        var expected = [UInt8](repeating: 0, count: 16)
        for (y, row) in Self.art[glyph]!.enumerated() {
            for (column, mark) in row.enumerated() where mark == "#" {
                let pixel = try #require(Self.pixelRAM["\(kind.rawValue) \(Self.columns[kind]![position] + column),\(y)"])
                for i in expected.indices { expected[i] |= pixel[i] }
            }
        }
        var text = [Character](repeating: " ", count: Self.columns[kind]!.count)
        text[position] = glyph
        let frame = try Frame(String(text), kind: kind)
        #expect(ramHex(frame.ram()) == ramHex(expected), "\"\(String(text))\" on \(kind.rawValue)")
        #expect(try Frame(ram: expected, kind: kind).text == String(text), "decodes back")
    }
}
