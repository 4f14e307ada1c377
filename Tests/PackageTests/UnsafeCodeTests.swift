import Foundation
import Testing

// What the Swift sources of both packages may say about memory and thread safety: no bit
// casts (function pointers come through C wrappers, raw memory through imported C structs),
// and every class that opts out of the compiler's Sendable check says why on the line above
// or on its own line.
@Suite struct UnsafeCodeTests {
    /// Spelled in two parts so that this file does not match itself.
    static let bitCast = "unsafe" + "BitCast"
    static let unchecked = "@unchecked" + " Sendable"

    /// Every `.swift` file under both packages' Sources and Tests (hidden folders such as
    /// `.build` left out), relative to the checkout, with its lines.
    static func swiftSources() throws -> [(path: String, lines: [Substring])] {
        let root = Checkout.root
        var found: [(String, [Substring])] = []
        for folder in ["Sources", "Tests", "Gateway/Sources", "Gateway/Tests"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
            else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" {
                let text = try String(contentsOf: url, encoding: .utf8)
                found.append((folder + "/" + url.path.dropFirst(base.path.count + 1), text.split(separator: "\n", omittingEmptySubsequences: false)))
            }
        }
        return found
    }

    @Test func sourcesFound() throws {
        let paths = try Self.swiftSources().map(\.path)
        #expect(paths.contains("Sources/Platform/SystemReadings.swift"))
        #expect(paths.contains { $0.hasPrefix("Gateway/Sources/") })
    }

    @Test func noBitCasts() throws {
        var hits: [String] = []
        for (path, lines) in try Self.swiftSources() {
            for (index, line) in lines.enumerated() where line.contains(Self.bitCast) {
                hits.append("\(path):\(index + 1)")
            }
        }
        #expect(hits.isEmpty, "\(Self.bitCast) in \(hits)")
    }

    /// A `//` comment (not a `///` doc comment) on the line above, or after the declaration on its line.
    @Test func everyUncheckedSendableSaysWhy() throws {
        var unexplained: [String] = []
        for (path, lines) in try Self.swiftSources() {
            for (index, line) in lines.enumerated() where line.contains(Self.unchecked) {
                let sameLine = line.range(of: Self.unchecked).map { line[$0.upperBound...].contains("//") } ?? false
                let above = index > 0 ? lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
                let lineAbove = above.hasPrefix("//") && !above.hasPrefix("///") && above.count > 3
                if !sameLine && !lineAbove { unexplained.append("\(path):\(index + 1)") }
            }
        }
        #expect(unexplained.isEmpty, "\(Self.unchecked) without a comment saying why: \(unexplained)")
    }
}
