/// Strict UTF-8 (RFC 3629 §4, Unicode Table 3-7 "Well-Formed UTF-8 Byte Sequences"): no
/// overlong forms, no surrogates (U+D800-DFFF), nothing above U+10FFFF, no truncated
/// sequence. RFC 8259 §8.1: JSON text exchanged between systems is UTF-8.
enum UTF8Check {
    /// The offset of the first byte of the first ill-formed sequence, or `nil`.
    static func firstInvalid(_ bytes: [UInt8]) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            // Length and the allowed range of the second byte (Table 3-7).
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; second = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; second = 0x80...0x9F
            case 0xF0: length = 4; second = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; second = 0x80...0x8F
            default: return i
            }
            guard i + length <= n, second.contains(bytes[i + 1]) else { return i }
            for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return i }
            i += length
        }
        return nil
    }
}
