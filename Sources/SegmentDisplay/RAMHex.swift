import Hex

/// Display RAM as text: 32 lowercase hexadecimal digits, byte 0 first (the first
/// line of `roundclock render`).
public func ramHex(_ ram: [UInt8]) -> String {
    ram.map { hex($0, digits: 2) }.joined()
}

/// Parses 32 hexadecimal digits (either case) into 16 display RAM bytes.
public func ramFromHex(_ text: String) throws(SegmentDisplayError) -> [UInt8] {
    let digits = Array(text.utf8)
    guard digits.count == 32 else { throw .invalidHex(text) }
    var ram: [UInt8] = []
    for index in stride(from: 0, to: 32, by: 2) {
        guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else {
            throw .invalidHex(text)
        }
        ram.append(high << 4 | low)
    }
    return ram
}

private func nibble(_ ascii: UInt8) -> UInt8? {
    switch ascii {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): ascii - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): ascii - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): ascii - UInt8(ascii: "A") + 10
    default: nil
    }
}
