import Foundation
import SegmentDisplay

/// One line of Golden/adafruit-golden.txt (written by Golden/generate.py from
/// Adafruit's CircuitPython HT16K33 library).
struct GoldenVector: CustomStringConvertible, Sendable {
    enum Input: Sendable {
        case text(String, dots: Indicators)
        case pixels([(x: Int, y: Int)])
    }

    let line: Int
    let kind: LayoutKind
    let ram: [UInt8]
    let input: Input

    var description: String { "golden line \(line)" }
}

enum GoldenFile {
    static let path: String = {
        let here = #filePath
        let directory = here[..<(here.lastIndex(of: "/") ?? here.startIndex)]
        return directory + "/Golden/adafruit-golden.txt"
    }()

    /// All vectors; a malformed line is reported by `problems`.
    static let parsed: (vectors: [GoldenVector], problems: [String]) = load()

    static var vectors: [GoldenVector] { parsed.vectors }

    private static func load() -> ([GoldenVector], [String]) {
        guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
            return ([], ["cannot read \(path)"])
        }
        var vectors: [GoldenVector] = []
        var problems: [String] = []
        for (offset, raw) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if let vector = parse(line, number: offset + 1) {
                vectors.append(vector)
            } else {
                problems.append("line \(offset + 1): \(line)")
            }
        }
        return (vectors, problems)
    }

    private static func parse(_ line: String, number: Int) -> GoldenVector? {
        let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let kind = LayoutKind(String(fields[0])),
              let ram = try? ramFromHex(String(fields[1]))
        else { return nil }
        let rest = fields[2]
        if rest.hasPrefix("pixels=") {
            var pixels: [(x: Int, y: Int)] = []
            for pair in rest.dropFirst("pixels=".count).split(separator: ";") {
                let xy = pair.split(separator: ",").compactMap { Int($0) }
                guard xy.count == 2 else { return nil }
                pixels.append((xy[0], xy[1]))
            }
            return GoldenVector(line: number, kind: kind, ram: ram, input: .pixels(pixels))
        }
        guard rest.first == "\"", let close = rest.lastIndex(of: "\""), close != rest.startIndex
        else { return nil }
        let text = String(rest[rest.index(after: rest.startIndex)..<close])
        var dots: Indicators = []
        let tail = rest[rest.index(after: close)...]
        if let range = tail.range(of: "dots=") {
            for name in tail[range.upperBound...].split(separator: ",") {
                switch name {
                case "upperLeft": dots.insert(.upperLeft)
                case "lowerLeft": dots.insert(.lowerLeft)
                case "ampm": dots.insert(.ampm)
                default: return nil
                }
            }
        }
        return GoldenVector(line: number, kind: kind, ram: ram, input: .text(text, dots: dots))
    }
}
