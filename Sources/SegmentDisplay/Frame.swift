/// What one panel's display RAM shows: a glyph per position (with its decimal point), the
/// colon and the extra indicator dots. Brightness and blink are panel settings (HT16K33
/// dimming and display setup), not RAM content: the driver takes them beside the RAM.
///
/// A Frame is always valid for its `kind`: build it from text (`init(_:kind:)`),
/// from display RAM (`init(ram:kind:)`) or blank (`init(kind:)`). Characters are
/// stored in the canonical form decoding returns (e.g. `s` on 7 segments is
/// stored as `5`), so `Frame(ram: frame.ram(), kind:)` equals the frame.
public struct Frame: Equatable, Sendable {
    /// One character position.
    public struct Cell: Equatable, Sendable {
        /// The glyph shown, in canonical form.
        public internal(set) var character: Character
        /// Whether the position's decimal point is lit.
        public internal(set) var point: Bool

        init(_ character: Character, point: Bool = false) {
            self.character = character
            self.point = point
        }
    }

    /// The backpack this frame is for.
    public let kind: LayoutKind
    /// Exactly `kind.positions` cells, left to right.
    public internal(set) var cells: [Cell]
    /// Which of `kind.colons` are lit, in the same order.
    /// Bit i set: colon i of `kind.colons` lit (a mask, not an array: no allocation per frame).
    var colonMask: UInt16 = 0
    /// Which of `kind.colons` are lit, in the same order.
    public var litColons: [Bool] { (0..<kind.colons.count).map { isColonLit($0) } }
    /// Whether colon `index` of `kind.colons` is lit.
    public func isColonLit(_ index: Int) -> Bool { colonMask & (1 << UInt16(index)) != 0 }
    /// Whether any colon is lit (the centre colon of the 4-digit backpacks).
    public var colon: Bool { colonMask != 0 }
    /// Extra dots (only on `bigseg7x4`).
    public internal(set) var indicators: Indicators = []

    /// A dark panel.
    public init(kind: LayoutKind) {
        self.kind = kind
        cells = Array(repeating: Cell(" "), count: kind.positions)
    }

    /// Parses panel text (see `TextParser` for the format), e.g. `" 2:58"`.
    public init(_ text: String, kind: LayoutKind) throws(SegmentDisplayError) {
        self = try TextParser.parse(text, kind: kind)
    }

    /// Turns every colon on or off; throws on kinds without a colon.
    public mutating func setColon(_ on: Bool) throws(SegmentDisplayError) {
        guard kind.hasColon else { throw .noColon(kind) }
        colonMask = on ? (1 << UInt16(kind.colons.count)) - 1 : 0
    }

    /// Sets the indicator dots; throws on kinds without them (all but `bigseg7x4`).
    public mutating func setIndicators(_ dots: Indicators) throws(SegmentDisplayError) {
        guard kind.hasIndicators || dots.isEmpty else { throw .noIndicators(kind) }
        indicators = dots.intersection(.all)
    }

    /// The panel text in canonical form: one character per position, `.` after a
    /// position whose point is lit, `:` after the position a lit colon follows (the 2nd
    /// on the 4-digit backpacks). Indicator dots have no text form.
    public var text: String {
        var result = ""
        for (index, cell) in cells.enumerated() {
            result.append(cell.character)
            if cell.point { result.append(".") }
            for (colonIndex, colon) in kind.colons.enumerated() where colon.after == index + 1 && isColonLit(colonIndex) {
                result.append(":")
            }
        }
        return result
    }
}
