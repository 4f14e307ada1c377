/// A monochrome picture for a matrix backpack, with the Adafruit pixel -> display
/// RAM mapping (HT16K33 display RAM: 8 rows ROW0...ROW15 per COM byte pair).
public struct PixelGrid: Equatable, Sendable {
    public let kind: LayoutKind
    public let width: Int
    public let height = 8
    private var lit: [Bool]

    /// A dark grid for `matrix8x8` (8 wide) or `matrix16x8` (16 wide); other
    /// kinds get a 16x8 grid that cannot be encoded (use a matrix kind).
    public init(kind: LayoutKind) {
        self.kind = kind
        width = kind == .matrix8x8 ? 8 : 16
        lit = Array(repeating: false, count: width * 8)
    }

    /// Pixel (x, y), x from the left, y from the top. Out of range reads false and
    /// ignores writes (like Adafruit's `pixel`).
    public subscript(x: Int, y: Int) -> Bool {
        get { contains(x, y) ? lit[y * width + x] : false }
        set { if contains(x, y) { lit[y * width + x] = newValue } }
    }

    private func contains(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && x < width && y >= 0 && y < height
    }

    /// Display RAM byte and bit of pixel (x, y).
    /// `matrix8x8`: byte 2y, bit (x - 1) mod 8 (Adafruit `Matrix8x8.pixel`:
    /// `x = (x - 1) % 8`). `matrix16x8`: byte 2y + x/8, bit x mod 8 (Adafruit
    /// `MatrixBackpack16x8.pixel`).
    public func location(x: Int, y: Int) -> (byte: Int, bit: Int) {
        if kind == .matrix8x8 {
            return (2 * y, (x + 7) % 8)
        }
        return (2 * y + x / 8, x % 8)
    }

    /// The 16 display RAM bytes.
    public func ram() -> [UInt8] {
        var ram = [UInt8](repeating: 0, count: 16)
        for y in 0..<height {
            for x in 0..<width where self[x, y] {
                let (byte, bit) = location(x: x, y: y)
                ram[byte] |= 1 << UInt8(bit)
            }
        }
        return ram
    }

    /// Reads a grid back from display RAM. Bits no pixel maps to (the odd bytes on
    /// 8x8) are reported as an error.
    public init(ram: [UInt8], kind: LayoutKind) throws(SegmentDisplayError) {
        guard ram.count == 16 else { throw .wrongRAMSize(ram.count) }
        self.init(kind: kind)
        var covered = [UInt8](repeating: 0, count: 16)
        for y in 0..<height {
            for x in 0..<width {
                let (byte, bit) = location(x: x, y: y)
                covered[byte] |= 1 << UInt8(bit)
                self[x, y] = ram[byte] & (1 << UInt8(bit)) != 0
            }
        }
        for index in 0..<16 where ram[index] & ~covered[index] != 0 {
            throw .undecodable(kind, detail: "byte \(index) has bits no pixel uses")
        }
    }
}
