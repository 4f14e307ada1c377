/// The 14-segment alphanumeric font, copied bit for bit from Adafruit's
/// CircuitPython HT16K33 library (`adafruit_ht16k33/segments.py`, table `CHARS`,
/// version 4.6.17), one entry per printable ASCII character 0x20...0x7E.
///
/// Bit numbering is the Adafruit quad alphanumeric backpack wiring of the
/// HT16K33 ROW outputs: A...F = bits 0...5, G1 = 6, G2 = 7, H = 8 (upper-left
/// diagonal), J = 9 (upper vertical), K = 10 (upper-right diagonal),
/// L = 11 (lower-left diagonal), M = 12 (lower vertical), N = 13 (lower-right
/// diagonal), DP = 14. Each entry's comment lists the segments it lights.
///
/// `.` is not a glyph: it lights DP of the previous position (see `TextParser`).
/// Its table entry (no segments) is kept only so the table stays indexable by ASCII.
enum FourteenSegmentFont {
    /// Decimal point, bit 14 of the 16-bit digit word.
    static let decimalPoint: UInt16 = 0x4000

    /// `(character, segment bits)` for ASCII 0x20...0x7E, in ASCII order.
    static let table: [(Character, UInt16)] = [
        (" ", 0x0000), // none
        ("!", 0x4006), // B C DP
        ("\"", 0x0220), // F J
        ("#", 0x12CE), // B C D G1 G2 J M
        ("$", 0x12ED), // A C D F G1 G2 J M
        ("%", 0x0C24), // C F K L
        ("&", 0x235D), // A C D E G1 H J N
        ("'", 0x0400), // K
        ("(", 0x2400), // K N
        (")", 0x0900), // H L
        ("*", 0x3FC0), // G1 G2 H J K L M N
        ("+", 0x12C0), // G1 G2 J M
        (",", 0x0800), // L
        ("-", 0x00C0), // G1 G2
        (".", 0x0000), // none
        ("/", 0x0C00), // K L
        ("0", 0x0C3F), // A B C D E F K L
        ("1", 0x0006), // B C
        ("2", 0x00DB), // A B D E G1 G2
        ("3", 0x008F), // A B C D G2
        ("4", 0x00E6), // B C F G1 G2
        ("5", 0x2069), // A D F G1 N
        ("6", 0x00FD), // A C D E F G1 G2
        ("7", 0x0007), // A B C
        ("8", 0x00FF), // A B C D E F G1 G2
        ("9", 0x00EF), // A B C D F G1 G2
        (":", 0x1200), // J M
        (";", 0x0A00), // J L
        ("<", 0x2440), // G1 K N
        ("=", 0x00C8), // D G1 G2
        (">", 0x0980), // G2 H L
        ("?", 0x60A3), // A B F G2 N DP
        ("@", 0x02BB), // A B D E F G2 J
        ("A", 0x00F7), // A B C E F G1 G2
        ("B", 0x128F), // A B C D G2 J M
        ("C", 0x0039), // A D E F
        ("D", 0x120F), // A B C D J M
        ("E", 0x00F9), // A D E F G1 G2
        ("F", 0x0071), // A E F G1
        ("G", 0x00BD), // A C D E F G2
        ("H", 0x00F6), // B C E F G1 G2
        ("I", 0x1200), // J M
        ("J", 0x001E), // B C D E
        ("K", 0x2470), // E F G1 K N
        ("L", 0x0038), // D E F
        ("M", 0x0536), // B C E F H K
        ("N", 0x2136), // B C E F H N
        ("O", 0x003F), // A B C D E F
        ("P", 0x00F3), // A B E F G1 G2
        ("Q", 0x203F), // A B C D E F N
        ("R", 0x20F3), // A B E F G1 G2 N
        ("S", 0x00ED), // A C D F G1 G2
        ("T", 0x1201), // A J M
        ("U", 0x003E), // B C D E F
        ("V", 0x0C30), // E F K L
        ("W", 0x2836), // B C E F L N
        ("X", 0x2D00), // H K L N
        ("Y", 0x1500), // H K M
        ("Z", 0x0C09), // A D K L
        ("[", 0x0039), // A D E F
        ("\\", 0x2100), // H N
        ("]", 0x000F), // A B C D
        ("^", 0x0C03), // A B K L
        ("_", 0x0008), // D
        ("`", 0x0100), // H
        ("a", 0x1058), // D E G1 M
        ("b", 0x2078), // D E F G1 N
        ("c", 0x00D8), // D E G1 G2
        ("d", 0x088E), // B C D G2 L
        ("e", 0x0858), // D E G1 L
        ("f", 0x0071), // A E F G1
        ("g", 0x048E), // B C D G2 K
        ("h", 0x1070), // E F G1 M
        ("i", 0x1000), // M
        ("j", 0x000E), // B C D
        ("k", 0x3600), // J K M N
        ("l", 0x0030), // E F
        ("m", 0x10D4), // C E G1 G2 M
        ("n", 0x1050), // E G1 M
        ("o", 0x00DC), // C D E G1 G2
        ("p", 0x0170), // E F G1 H
        ("q", 0x0486), // B C G2 K
        ("r", 0x0050), // E G1
        ("s", 0x2088), // D G2 N
        ("t", 0x0078), // D E F G1
        ("u", 0x001C), // C D E
        ("v", 0x2004), // C N
        ("w", 0x2814), // C E L N
        ("x", 0x28C0), // G1 G2 L N
        ("y", 0x200C), // C D N
        ("z", 0x0848), // D G1 L
        ("{", 0x0949), // A D G1 H L
        ("|", 0x1200), // J M
        ("}", 0x2489), // A D G2 K N
        ("~", 0x0520), // F H K
    ]

    /// Character -> bits. Every printable ASCII character except `.` (handled as
    /// a decimal point by the parser).
    static let bitsByCharacter: [Character: UInt16] = {
        var map: [Character: UInt16] = [:]
        for (character, bits) in table where character != "." {
            map[character] = bits
        }
        return map
    }()

    /// Bits -> the character decoding returns. Where Adafruit's table gives two
    /// characters the same pattern, decoding returns the first of:
    /// `I` for `:` `I` `|` (0x1200), `C` for `C` `[` (0x0039), `F` for `F` `f` (0x0071).
    /// `!` (0x4006) equals `1` with its decimal point and is decoded as `1.`
    /// (handled by the decoder, so `!` is never returned).
    static let characterByBits: [UInt16: Character] = {
        let preferred: [Character] = ["I", "C", "F"]
        var map: [UInt16: Character] = [:]
        for (character, bits) in table where character != "." && character != "!" {
            if let existing = map[bits], preferred.contains(existing) { continue }
            if map[bits] == nil || preferred.contains(character) { map[bits] = character }
        }
        return map
    }()

    /// `bitsByCharacter` for the 128 ASCII characters, indexed by `asciiValue`: every
    /// encoded character is looked up without hashing a `Character`.
    static let bitsByASCII: [UInt16?] = (0..<128).map { bitsByCharacter[Character(Unicode.Scalar(UInt8($0)))] }

    /// `bitsByCharacter[character]`.
    static func bits(for character: Character) -> UInt16? {
        guard let ascii = character.asciiValue else { return bitsByCharacter[character] }
        return bitsByASCII[Int(ascii)]
    }
}
