import Hex
import Testing

/// The one hexadecimal formatter: every form the callers use.
@Suite struct HexTests {
    @Test(arguments: [
        (UInt64(0x70), 1, false, "70"),          // I2C addresses: `0x70`, unpadded
        (UInt64(0x7), 1, false, "7"),
        (UInt64(0x0A), 2, false, "0a"),          // I2C bytes and display RAM: two digits
        (UInt64(0xFF), 2, false, "ff"),
        (UInt64(0x1B), 4, false, "001b"),        // frames file JSON escape `\u001b`
        (UInt64(0x1B), 4, true, "001B"),         // TOML `\u001B`, `U+001B`
        (UInt64(0x3FFF), 4, false, "3fff"),      // 14-segment glyph word
        (UInt64(0x10FFFF), 4, true, "10FFFF"),   // never cut to `digits`
        (UInt64(0), 1, false, "0"),
        (UInt64(0), 0, false, "0"),
        (UInt64.max, 2, true, "FFFFFFFFFFFFFFFF"),
    ])
    func formats(value: UInt64, digits: Int, uppercase: Bool, expected: String) {
        #expect(hex(value, digits: digits, uppercase: uppercase) == expected)
    }

    @Test func takesEveryUnsignedWidth() {
        #expect(hex(UInt8(0x2a), digits: 2) == "2a")
        #expect(hex(UInt16(0xBEEF)) == "beef")
        #expect(hex(UInt32(0xFEFF), digits: 4, uppercase: true) == "FEFF")
    }

    /// Agrees with the standard library's `String(_:radix:)` for every byte and padding.
    @Test func agreesWithTheStandardLibrary() {
        for value in UInt8.min...UInt8.max {
            for digits in 1...3 {
                let plain = String(value, radix: 16)
                #expect(hex(value, digits: digits) == String(repeating: "0", count: max(0, digits - plain.count)) + plain)
            }
        }
    }
}
