import Testing
@testable import SegmentDisplay

/// The ASCII tables the encoder, parser and decoder look characters up in (no
/// `Character` hashing per encoded character) give exactly what the dictionaries give.
struct FontLookupTests {
    static let characters: [Character] = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) } + ["\r\n", "é", "Ω", "😀", "\u{301}"]

    @Test func sevenSegmentBitsMatchTheDictionary() {
        for character in Self.characters {
            #expect(SevenSegmentFont.bits(for: character) == SevenSegmentFont.bitsByCharacter[character], "\(character.unicodeScalars.map(\.value))")
        }
    }

    @Test func fourteenSegmentBitsMatchTheDictionary() {
        for character in Self.characters {
            #expect(FourteenSegmentFont.bits(for: character) == FourteenSegmentFont.bitsByCharacter[character], "\(character.unicodeScalars.map(\.value))")
        }
    }

    @Test func sevenSegmentCharactersMatchTheDictionary() {
        for bits in UInt8.min...UInt8.max {
            #expect(SevenSegmentFont.character(for: bits) == SevenSegmentFont.characterByBits[bits], "0x\(String(bits, radix: 16))")
        }
    }
}
