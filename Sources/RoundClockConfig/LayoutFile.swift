import SegmentDisplay

/// `[layouts.NAME]` of a board file: a custom-wired segment panel, e.g. big 7-segment
/// digits driven from an HT16K33 directly. A panel uses it with `kind = "NAME"`.
///
/// ```toml
/// [layouts.big6]
/// font = "7-segment"                       # or "14-segment"
/// digits = [ { com = 0, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g = 6, dp = 7 }, ... ]
/// colons = [ { after = 2, com = 6, rows = [0, 1] } ]
/// ```
/// Each segment is the ROW (0...15) it is wired to on the digit's `com` (0...7), or a pair
/// `[com, row]` for a segment on another common (HT16K33 RAM: address 2·COM + ROW/8, bit
/// ROW mod 8). Every segment of the font is required, `dp` is optional; no RAM bit may be
/// used twice; at most `maximumDigits` digits.
enum LayoutFile {
    /// 8 commons: at most 8 digits (16 rows hold a 14-segment digit and its point per common).
    static let maximumDigits = 8

    static func parse(name: String, _ table: inout TOMLReader) throws(ConfigError) -> LayoutKind {
        let fontName = try table.choice("font", [LayoutKind.Font.sevenSegment.rawValue, LayoutKind.Font.fourteenSegment.rawValue])
        guard let fontName, let font = LayoutKind.Font(rawValue: fontName) else {
            throw table.fail("font", "missing; \"7-segment\" or \"14-segment\"")
        }
        var owners: [RAMBit: String] = [:]
        func claim(_ bit: RAMBit, _ owner: String, in reader: TOMLReader, key: String) throws(ConfigError) {
            if let previous = owners[bit] {
                throw reader.fail(key, "\(bit) is already used by \(previous); each RAM bit lights one thing")
            }
            owners[bit] = owner
        }
        let digitTables = try table.tables("digits")
        guard (1...maximumDigits).contains(digitTables.count) else {
            throw table.fail("digits", "\(digitTables.count) digits; allowed are 1 to \(maximumDigits) (the HT16K33 has 8 commons)")
        }
        var digits: [DigitWiring] = []
        for (index, var entry) in digitTables.enumerated() {
            let com = try entry.int("com", in: 0...7)
            var segments: [RAMBit] = []
            for segment in font.segmentNames {
                guard let bit = try ramBit(segment, com: com, in: &entry) else {
                    throw entry.fail(segment, "missing; a \(font.rawValue) digit needs \(font.segmentNames.joined(separator: ", ")) (dp optional)")
                }
                try claim(bit, "digit \(index + 1) segment \(segment)", in: entry, key: segment)
                segments.append(bit)
            }
            let point = try ramBit("dp", com: com, in: &entry)
            if let point { try claim(point, "digit \(index + 1) dp", in: entry, key: "dp") }
            try entry.finish()
            digits.append(DigitWiring(segments: segments, point: point))
        }
        var colons: [ColonWiring] = []
        for var entry in try table.tables("colons") {
            guard let after = try entry.int("after", in: 1...max(1, digits.count - 1)) else {
                throw entry.fail("after", "missing; the colon sits after digit 1 to \(digits.count - 1)")
            }
            guard let com = try entry.int("com", in: 0...7) else { throw entry.fail("com", "missing; the common 0 to 7 of the colon's LEDs") }
            guard let rows = try entry.intOrIntArray("rows", what: "a ROW 0 to 15 or a list of them") else {
                throw entry.fail("rows", "missing; the ROW (0 to 15) or ROWs of the colon's LEDs")
            }
            var bits: [RAMBit] = []
            for row in rows {
                guard (0...15).contains(row) else { throw entry.fail("rows", "\(row) is out of range; allowed are 0 to 15") }
                let bit = RAMBit(com: com, row: row)
                try claim(bit, "the colon after digit \(after)", in: entry, key: "rows")
                bits.append(bit)
            }
            if colons.contains(where: { $0.after == after }) {
                throw entry.fail("after", "\(after): a colon after digit \(after) is already defined")
            }
            try entry.finish()
            colons.append(ColonWiring(after: after, bits: bits))
        }
        try table.finish()
        return .custom(name: name, font: font, digits: digits, colons: colons)
    }

    /// A segment's RAM bit: a ROW on the digit's `com`, or `[com, row]`.
    private static func ramBit(_ key: String, com: Int?, in entry: inout TOMLReader) throws(ConfigError) -> RAMBit? {
        let what = "a ROW 0 to 15 (on the digit's com) or [com, row]"
        guard let values = try entry.intOrIntArray(key, what: what) else { return nil }
        switch values.count {
        case 1:
            guard let com else { throw entry.fail(key, "\(values[0]) is a ROW but the digit has no com; give com = 0 to 7 or [com, row]") }
            guard (0...15).contains(values[0]) else { throw entry.fail(key, "ROW \(values[0]) is out of range; allowed are 0 to 15") }
            return RAMBit(com: com, row: values[0])
        case 2:
            guard (0...7).contains(values[0]) else { throw entry.fail(key, "COM \(values[0]) in \(values) is out of range; allowed are 0 to 7") }
            guard (0...15).contains(values[1]) else { throw entry.fail(key, "ROW \(values[1]) in \(values) is out of range; allowed are 0 to 15") }
            return RAMBit(com: values[0], row: values[1])
        default:
            throw entry.fail(key, "\(values) has \(values.count) numbers; expected \(what)")
        }
    }
}
