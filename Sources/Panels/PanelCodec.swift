import SegmentDisplay

/// Panel text <-> the 16 display RAM bytes of one panel's backpack (`Frame`), remembering
/// the last text encoded and the last RAM decoded. Both directions are pure functions of
/// their input, so a panel whose text did not change (two of three panels on most commits:
/// round and phase stay while the time counts) reuses the bytes and the text instead of
/// parsing, encoding and decoding them again (fewer instructions per displayed second).
struct PanelCodec: Sendable {
    let kind: LayoutKind
    private var encoded: (text: String, ram: [UInt8])?
    private var decoded: (ram: [UInt8], text: String)?

    init(kind: LayoutKind) { self.kind = kind }

    /// The display RAM for `text` (`Frame(text, kind:).ram()`); throws what parsing throws,
    /// every time (nothing is remembered for text the backpack cannot show). Text of blanks
    /// only is a dark panel whatever its length (the core's blank texts are four wide; a
    /// round panel may have two digits).
    mutating func ram(for text: String) throws(SegmentDisplayError) -> [UInt8] {
        if let encoded, encoded.text == text { return encoded.ram }
        let shown = text.utf8.allSatisfy { $0 == UInt8(ascii: " ") } ? "" : text
        let ram = try Frame(shown, kind: kind).ram()
        encoded = (text, ram)
        return ram
    }

    /// The panel text `ram` shows (`Frame(ram:kind:).text`), or `?` for RAM no text
    /// encodes to (garbage after a power loss).
    mutating func text(of ram: [UInt8]) -> String {
        if let decoded, decoded.ram == ram { return decoded.text }
        let text = (try? Frame(ram: ram, kind: kind).text) ?? "?"
        decoded = (ram, text)
        return text
    }
}
