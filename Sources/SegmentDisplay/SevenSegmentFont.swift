/// The 7-segment font. Bit numbering is the Adafruit 7-segment backpack wiring of
/// the HT16K33 ROW outputs: A = bit 0 (top), B = 1 (upper right), C = 2 (lower
/// right), D = 3 (bottom), E = 4 (lower left), F = 5 (upper left), G = 6 (middle),
/// DP = 7 (decimal point).
///
/// Patterns are copied from Adafruit's CircuitPython HT16K33 library
/// (`adafruit_ht16k33/segments.py`, table `NUMBERS` and `_AbstractSeg7x4._put`,
/// version 4.6.17). Adafruit lower-cases every letter first, so upper and lower
/// case share one pattern; its `oO` and `lL` special cases are unreachable
/// (the letter branch catches them first), so `O` is the small `o` (0x5C).
///
/// Deliberate differences from Adafruit:
/// - `K`, `M`, `W`, `X` (Adafruit: `-`) and `Z` (Adafruit: blank) cannot be read
///   on seven segments; they are rejected with an error naming the character.
/// - `_` (segment D) is an addition; Adafruit leaves the position blank.
/// - `+` (segments E F G, drawn like a `⊢`: the left bars and the middle bar) is an
///   addition for the overtime sign `+M:SS`; seven segments have no true plus. The parser
///   takes it only right before a digit (`TextParser`).
enum SevenSegmentFont {
    /// Decimal point, bit 7 of the digit byte.
    static let decimalPoint: UInt8 = 0x80

    /// `(character, segment bits)`; the first entry for a pattern is what decoding
    /// returns. Lower-case letters are accepted as aliases of these (see
    /// `bitsByCharacter`).
    static let table: [(Character, UInt8)] = [
        ("0", 0x3F), // A B C D E F
        ("1", 0x06), // B C
        ("2", 0x5B), // A B D E G
        ("3", 0x4F), // A B C D G
        ("4", 0x66), // B C F G
        ("5", 0x6D), // A C D F G
        ("6", 0x7D), // A C D E F G
        ("7", 0x07), // A B C
        ("8", 0x7F), // A B C D E F G
        ("9", 0x6F), // A B C D F G
        ("A", 0x77), // A B C E F G
        ("B", 0x7C), // C D E F G   (reads "b")
        ("C", 0x39), // A D E F
        ("D", 0x5E), // B C D E G   (reads "d")
        ("E", 0x79), // A D E F G
        ("F", 0x71), // A E F G
        ("G", 0x3D), // A C D E F
        ("H", 0x76), // B C E F G
        ("I", 0x30), // E F         (left-hand "1")
        ("J", 0x1E), // B C D E
        ("L", 0x38), // D E F
        ("N", 0x54), // C E G       (reads "n")
        ("O", 0x5C), // C D E G     (reads "o")
        ("P", 0x73), // A B E F G
        ("Q", 0x67), // A B C F G   (reads "q")
        ("R", 0x50), // E G         (reads "r")
        ("S", 0x6D), // A C D F G   (same as "5"; decodes as "5")
        ("T", 0x78), // D E F G     (reads "t")
        ("U", 0x3E), // B C D E F
        ("V", 0x1C), // C D E       (reads "v")
        ("Y", 0x6E), // B C D F G   (reads "y")
        ("-", 0x40), // G
        ("_", 0x08), // D
        ("+", 0x70), // E F G       (sign only: "⊢")
        (" ", 0x00), // none
    ]

    /// Character -> bits, including lower-case aliases of every letter.
    static let bitsByCharacter: [Character: UInt8] = {
        var map: [Character: UInt8] = [:]
        for (character, bits) in table {
            map[character] = bits
            for lower in character.lowercased() { map[lower] = bits }
        }
        return map
    }()

    /// Bits -> canonical character: digits before letters (0x6D is `5`, not `S`),
    /// letters in upper case.
    static let characterByBits: [UInt8: Character] = {
        var map: [UInt8: Character] = [:]
        for (character, bits) in table where map[bits] == nil {
            map[bits] = character
        }
        return map
    }()

    /// `bitsByCharacter` for the 128 ASCII characters, indexed by `asciiValue`: every
    /// encoded character is looked up without hashing a `Character`.
    static let bitsByASCII: [UInt8?] = (0..<128).map { bitsByCharacter[Character(Unicode.Scalar(UInt8($0)))] }

    /// `characterByBits` for all 128 patterns of segments A...G, indexed by the pattern.
    static let characterBySegments: [Character?] = (0..<128).map { characterByBits[UInt8($0)] }

    /// `bitsByCharacter[character]`.
    static func bits(for character: Character) -> UInt8? {
        guard let ascii = character.asciiValue else { return bitsByCharacter[character] }
        return bitsByASCII[Int(ascii)]
    }

    /// `characterByBits[bits]`.
    static func character(for bits: UInt8) -> Character? {
        bits < 0x80 ? characterBySegments[Int(bits)] : characterByBits[bits]
    }
}
