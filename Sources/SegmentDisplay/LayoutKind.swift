/// A panel's layout: which glyphs it draws (`font`) and, for segment panels, which display
/// RAM bit lights each segment, colon and point (`digits`, `colons`, `indicatorWires`).
/// The Adafruit backpacks RoundClock knows by name (`seg7x4`, `bigseg7x4`, `seg14x4`,
/// `matrix8x8`, `matrix16x8`: board files and the command line) are built-in instances;
/// a board file may define its own segment layout (`custom(...)`, custom-wired digits).
public struct LayoutKind: Sendable, Hashable, CaseIterable, LosslessStringConvertible {
    /// How characters are drawn.
    public enum Font: String, Sendable, Hashable {
        /// `SevenSegmentFont`: segments A...G, then DP.
        case sevenSegment = "7-segment"
        /// `FourteenSegmentFont`: segments A...F, G1, G2, H...N, then DP.
        case fourteenSegment = "14-segment"
        /// `MatrixFont` on a pixel grid (`PixelGrid`), built-in matrices only.
        case matrix

        /// Segment names in font bit order, without DP (board files use these keys).
        public var segmentNames: [String] {
            switch self {
            case .sevenSegment: ["a", "b", "c", "d", "e", "f", "g"]
            case .fourteenSegment: ["a", "b", "c", "d", "e", "f", "g1", "g2", "h", "j", "k", "l", "m", "n"]
            case .matrix: []
            }
        }
    }

    /// The wiring, shared by every copy: a layout is copied into each `Frame`, so a copy is
    /// one reference (fewer instructions per displayed second).
    final class Storage: Sendable {
        let rawValue: String
        let font: Font
        let positions: Int
        let digits: [DigitWiring]
        let colons: [ColonWiring]
        let indicatorWires: [RAMBit]
        /// Per RAM byte, the bits some segment, point, colon or dot is wired to.
        let usedBits: [UInt8]
        /// Whether any digit has a point.
        let hasPoints: Bool

        init(rawValue: String, font: Font, positions: Int, digits: [DigitWiring], colons: [ColonWiring], indicatorWires: [RAMBit]) {
            self.rawValue = rawValue
            self.font = font
            self.positions = positions
            self.digits = digits
            self.colons = colons
            self.indicatorWires = indicatorWires
            var used = [UInt8](repeating: 0, count: 16)
            let wires = digits.flatMap { $0.segments + ($0.point.map { [$0] } ?? []) } + colons.flatMap(\.bits) + indicatorWires
            for wire in wires { used[wire.byte] |= wire.mask }
            usedBits = used
            hasPoints = digits.contains { $0.point != nil }
        }
    }

    let storage: Storage

    /// The name (board files, `render --display`, errors).
    public var rawValue: String { storage.rawValue }
    public var font: Font { storage.font }
    /// Number of character positions on the panel.
    public var positions: Int { storage.positions }
    /// Segment panels: one wiring per position, left to right (empty for matrices).
    public var digits: [DigitWiring] { storage.digits }
    /// Colons, each lit by `:` in the text after its position.
    public var colons: [ColonWiring] { storage.colons }
    /// The extra dots `Indicators.upperLeft`, `.lowerLeft`, `.ampm`, in that order (only
    /// `bigseg7x4` has them).
    public var indicatorWires: [RAMBit] { storage.indicatorWires }

    /// A layout from its parts; `digits.count` positions. Nothing is checked here: board
    /// files check custom layouts with errors naming the key (RoundClockConfig).
    public static func custom(name: String, font: Font, digits: [DigitWiring], colons: [ColonWiring]) -> LayoutKind {
        LayoutKind(rawValue: name, font: font, positions: digits.count, digits: digits, colons: colons, indicatorWires: [])
    }

    init(rawValue: String, font: Font, positions: Int, digits: [DigitWiring] = [], colons: [ColonWiring], indicatorWires: [RAMBit] = []) {
        storage = Storage(rawValue: rawValue, font: font, positions: positions, digits: digits, colons: colons, indicatorWires: indicatorWires)
    }

    public static func == (a: LayoutKind, b: LayoutKind) -> Bool {
        a.storage === b.storage || (a.rawValue == b.rawValue && a.font == b.font && a.positions == b.positions
            && a.digits == b.digits && a.colons == b.colons && a.indicatorWires == b.indicatorWires)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
        hasher.combine(positions)
        hasher.combine(digits)
    }

    /// Only the built-in layouts, by exact name, e.g. `"seg7x4"`.
    public init?(rawValue: String) {
        guard let found = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = found
    }

    public init?(_ description: String) { self.init(rawValue: description) }

    public var description: String { rawValue }

    /// The built-in Adafruit layouts.
    public static let allCases: [LayoutKind] = [.seg7x4, .bigseg7x4, .seg14x4, .matrix8x8, .matrix16x8]

    /// Whether the panel has at least one colon. On `seg14x4`, `:` is an ordinary glyph.
    public var hasColon: Bool { !colons.isEmpty }

    /// Whether any position has a decimal point (`.` in text).
    public var hasDecimalPoints: Bool { storage.hasPoints }

    /// Whether position `index` has a decimal point.
    public func hasPoint(at index: Int) -> Bool {
        digits.indices.contains(index) && digits[index].point != nil
    }

    /// Whether the panel has the extra indicator dots of the 1.2" backpack.
    public var hasIndicators: Bool { !indicatorWires.isEmpty }

    /// Whether the panel is an LED matrix (drawn with `MatrixFont`).
    public var isMatrix: Bool { font == .matrix }

    /// Whether this is one of the built-in Adafruit layouts (by name and wiring).
    public var isBuiltIn: Bool { Self.allCases.contains(self) }
}
