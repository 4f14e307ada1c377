import SegmentDisplay
import Testing

/// Our encoder against RAM bytes produced by Adafruit's own library.
@Suite("Adafruit golden RAM vectors")
struct GoldenTests {
    @Test("golden file is present and well formed")
    func fileIsComplete() {
        #expect(GoldenFile.parsed.problems.isEmpty, "\(GoldenFile.parsed.problems)")
        let kinds = Set(GoldenFile.vectors.map(\.kind))
        #expect(kinds == Set(LayoutKind.allCases))
        #expect(GoldenFile.vectors.count > 1500)
    }

    @Test("text encodes to Adafruit's bytes and decodes back", arguments: GoldenFile.vectors)
    func vector(_ vector: GoldenVector) throws {
        switch vector.input {
        case let .text(text, dots):
            var frame = try Frame(text, kind: vector.kind)
            try frame.setIndicators(dots)
            #expect(ramHex(frame.ram()) == ramHex(vector.ram), "text \"\(text)\"")
            let decoded = try Frame(ram: vector.ram, kind: vector.kind)
            #expect(decoded == frame, "text \"\(text)\" decoded as \"\(decoded.text)\"")
        case let .pixels(pixels):
            var grid = PixelGrid(kind: vector.kind)
            for pixel in pixels { grid[pixel.x, pixel.y] = true }
            #expect(ramHex(grid.ram()) == ramHex(vector.ram))
            #expect(try PixelGrid(ram: vector.ram, kind: vector.kind) == grid)
        }
    }
}
