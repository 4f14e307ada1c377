/// `value` in hexadecimal, at least `digits` digits (zero-padded on the left, never cut),
/// lowercase unless `uppercase`, without a prefix: callers write theirs ("0x" for I2C
/// addresses and bytes, "U+" for code points, "\u" for JSON and TOML escapes).
/// `hex(0x70)` is "70", `hex(0x0A, digits: 2)` "0a", `hex(0x1B, digits: 4, uppercase: true)` "001B".
/// Values wider than 64 bits keep their low 64 bits.
@inlinable
public func hex(_ value: some UnsignedInteger, digits: Int = 1, uppercase: Bool = false) -> String {
    let bits = UInt64(truncatingIfNeeded: value)
    let significant = max(1, (bits.bitWidth - bits.leadingZeroBitCount + 3) / 4)
    let count = max(significant, digits)
    return String(unsafeUninitializedCapacity: count) { utf8 in
        var rest = bits
        for index in stride(from: count - 1, through: 0, by: -1) {
            let nibble = UInt8(truncatingIfNeeded: rest & 0xF)
            // ASCII: "0" is 0x30, "a" 0x61 (= 0x57 + 10), "A" 0x41 (= 0x37 + 10)
            utf8[index] = nibble < 10 ? 0x30 + nibble : (uppercase ? 0x37 : 0x57) + nibble
            rest >>= 4
        }
        return count
    }
}
