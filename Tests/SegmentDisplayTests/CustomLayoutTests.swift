import Foundation
import SegmentDisplay
import TestSupport
import Testing

/// Layouts as data: the Adafruit backpacks rebuilt from their wiring give Adafruit's bytes,
/// and custom-wired panels encode byte-exact and decode back.
@Suite struct CustomLayoutTests {
    /// Six 7-segment digits on COM0...COM5 (a...g = ROW0...6, dp = ROW7), colons after digits
    /// 2 and 4 on COM6 ROW0+1 and ROW2+3: boards/bigdigits.toml's `big6`.
    static let big6 = LayoutKind.custom(
        name: "big6", font: .sevenSegment,
        digits: (0..<6).map { DigitWiring.common($0, segments: 7, point: true) },
        colons: [2, 4].map { ColonWiring(after: $0, bits: [RAMBit(com: 6, row: $0 - 2), RAMBit(com: 6, row: $0 - 1)]) })

    @Test func theAdafruitWiringAsCustomLayoutsGivesTheGoldenBytes() throws {
        let rebuilt = [LayoutKind.seg7x4, .seg14x4].map {
            LayoutKind.custom(name: "rebuilt-\($0)", font: $0.font, digits: $0.digits, colons: $0.colons)
        }
        var checked = 0
        for vector in GoldenFile.vectors {
            guard case let .text(text, dots) = vector.input, dots.isEmpty,
                  let layout = rebuilt.first(where: { $0.rawValue == "rebuilt-\(vector.kind)" }) else { continue }
            let frame = try Frame(text, kind: layout)
            #expect(frame.ram() == vector.ram, "\(vector)")
            let adafruit = try Frame(text, kind: vector.kind)
            #expect(try Frame(ram: vector.ram, kind: layout).text == adafruit.text)
            checked += 1
        }
        #expect(checked > 800, "every seg7x4 and seg14x4 text vector")
    }

    @Test(arguments: [
        (" 1:59:59", "000006006d006f006d006f000f000000"),
        ("10:00:00", "06003f003f003f003f003f000f000000"),
        ("9:59", "0000000000006f006d006f000c000000"),
        ("12:34.5 ", "06005b004f00e6006d00000003000000"),
        ("-1:05", "00000000400006003f006d000c000000"),
        ("+1:05", "00000000700006003f006d000c000000"),
    ])
    func sixDigitsByteExact(text: String, hex: String) throws {
        let frame = try Frame(text, kind: Self.big6)
        #expect(ramHex(frame.ram()) == hex)
        let decoded = try Frame(ram: try ramFromHex(hex), kind: Self.big6)
        #expect(decoded == frame)
        let again = try Frame(text, kind: Self.big6)
        #expect(decoded.text == again.text)
    }

    @Test func colonsOnlyWhereWired() {
        for text in ["1:23456", "12:3:456", "123:456", "1:2:3", "12::3456"] {
            #expect(throws: SegmentDisplayError.misplacedColon(text, Self.big6), "\(text)") { try Frame(text, kind: Self.big6) }
        }
        #expect(SegmentDisplayError.misplacedColon("1:2", Self.big6).description
            == "text \"1:2\": on big6 a ':' must sit after position 2 or 4, once each (text is right-aligned)")
    }

    @Test func garbageOnACustomPanelIsReported() throws {
        var ram = try Frame(" 1:59:59", kind: Self.big6).ram()
        ram[12] = 0x01 // one LED of the first colon
        #expect(throws: SegmentDisplayError.undecodable(Self.big6, detail: "colon after position 2 is only partly lit")) {
            try Frame(ram: ram, kind: Self.big6)
        }
        ram[12] = 0
        ram[13] = 0x80 // COM6 ROW15: wired to nothing
        #expect(throws: SegmentDisplayError.undecodable(Self.big6, detail: "byte 13 = 0x80 has bits not used by big6")) {
            try Frame(ram: ram, kind: Self.big6)
        }
    }

    /// Random wirings (any bit of the 128 for any segment, points and colons included) and
    /// random texts: text -> RAM -> text is exact, and each lit segment is its wired bit.
    @Test func randomWiringsRoundTrip() throws {
        let seed = ProcessInfo.processInfo.environment["ROUNDCLOCK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("CustomLayoutTests.randomWiringsRoundTrip seed \(seed) (replay: ROUNDCLOCK_SEED=\(seed) swift test --filter randomWiringsRoundTrip)")
        var random = SplitMix64(seed: seed)
        for _ in 0..<300 {
            let font: LayoutKind.Font = random.chance(50) ? .sevenSegment : .fourteenSegment
            var free = (0..<128).map { RAMBit(com: $0 / 16, row: $0 % 16) }
            free.shuffle(using: &random)
            let count = Int(random.next() % 8) + 1
            let segments = font.segmentNames.count
            let digits = (0..<count).map { _ in
                DigitWiring(segments: (0..<segments).map { _ in free.removeLast() }, point: random.chance(70) ? free.removeLast() : nil)
            }
            let colons = count < 2 ? [] : [ColonWiring(after: Int(random.next() % UInt64(count - 1)) + 1, bits: [free.removeLast(), free.removeLast()])]
            let layout = LayoutKind.custom(name: "random", font: font, digits: digits, colons: colons)
            let alphabet: [Character] = font == .sevenSegment ? Array("0123456789-AbCdEFHJLnoPrtUy ") : Array("0123456789-+ABCDEFGHIJKLMNOPQRSTUVWXYZ*/ ")
            var text = ""
            var expected = [UInt8](repeating: 0, count: 16)
            for index in 0..<count {
                let character = random.pick(alphabet)
                let point = layout.hasPoint(at: index) && random.chance(30)
                text.append(character)
                if point { text.append(".") }
                if let colon = colons.first, colon.after == index + 1 {
                    text.append(":")
                    for wire in colon.bits { expected[wire.byte] |= wire.mask }
                }
                // The oracle: the glyph's segments as the Adafruit backpack lights them
                // (rightmost position), moved onto this digit's wiring.
                let adafruit = try Frame(String(character), kind: font == .sevenSegment ? .seg7x4 : .seg14x4).ram()
                let pattern = font == .sevenSegment ? UInt16(adafruit[8]) : UInt16(adafruit[6]) | UInt16(adafruit[7]) << 8
                for (bit, wire) in digits[index].segments.enumerated() where pattern & (1 << UInt16(bit)) != 0 {
                    expected[wire.byte] |= wire.mask
                }
                if point, let wire = digits[index].point { expected[wire.byte] |= wire.mask }
            }
            let frame = try Frame(text, kind: layout)
            #expect(frame.ram() == expected, "seed \(seed): \(text)")
            #expect(try Frame(ram: expected, kind: layout) == frame, "seed \(seed): \(text)")
        }
    }
}
