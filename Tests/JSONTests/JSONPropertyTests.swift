#if canImport(Glibc)
import Glibc
#endif
import ControlProtocol
import JSON
#if canImport(PropertyBased) // not in the package graph of Swift 6.0 builds (docs/install.md)
import PropertyBased
#endif
import Testing
import TestSupport

/// The reader and the writer against random input (swift-property-based prints the seed of
/// a failing case, and `.fixedSeed(...)` replays it) and the generated corpus of malformed
/// request lines (its seed printed).
@Suite struct JSONPropertyTests {
    static let parser = JSONParser(maxBytes: 4096, maxDepth: 8)

    /// A value built from a list of small numbers (so the property library can shrink it).
    static func value(_ recipe: inout ArraySlice<Int>, depth: Int = 0) -> JSONValue {
        guard let step = recipe.popFirst() else { return .null }
        let strings = ["", "a", "start", "é", "😀", "\"q\"", "back\\slash", "line\nfeed", "tab\t", "\u{1}\u{1f}", "\u{7f}", "\u{2028}"]
        switch step % 8 {
        case 0: return .null
        case 1: return .bool(step % 16 < 8)
        case 2: return .int(step * (step % 3 == 0 ? -1 : 1))
        case 3: return .number(["0", "-0", "1.5", "-2.25e-3", "6E+10", "123456789012345678901234567890"][step % 6])
        case 4: return .string(strings[step % strings.count])
        case 5 where depth < 7:
            let count = (recipe.popFirst() ?? 0) % 4
            return .array((0..<count).map { _ in value(&recipe, depth: depth + 1) })
        case 6 where depth < 7:
            let count = (recipe.popFirst() ?? 0) % 4
            return .object((0..<count).map { i in JSONMember("k\(i)\(strings[(step + i) % strings.count])", value(&recipe, depth: depth + 1)) })
        default: return .string(String(step))
        }
    }

    #if canImport(PropertyBased)
    @Test func whatIsWrittenReadsBackTheSame() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...10_000).array(of: 0...60)) { recipe in
            var steps = recipe[...]
            let value = Self.value(&steps)
            let line = value.encoded
            #expect(!line.contains("\n"), "one line")
            #expect((try? Self.parser.parse(line)) == value, "\(line)")
        }
    }

    #endif

    /// Either a value whose writing reads back the same, or a one-line error inside the input.
    static func readOrRefuse(_ bytes: [UInt8]) {
        let value: JSONValue
        do throws(JSONError) {
            value = try parser.parse(bytes)
        } catch {
            #expect(!error.description.contains("\n") && error.offset <= bytes.count, "\(error)")
            return
        }
        #expect((try? parser.parse(value.encoded)) == value)
    }

    #if canImport(PropertyBased)
    @Test func anyBytesAreReadOrRefusedInOneLine() async {
        await propertyCheck(count: 2000, input: Gen.int(in: 0...255).array(of: 0...80)) { numbers in
            let bytes = numbers.map { UInt8($0) }
            Self.readOrRefuse(bytes)
        }
    }

    @Test func aValidTextWithOneByteChangedIsReadOrRefusedInOneLine() async {
        let base = Array(#"{"command": "program", "program": "10 x 0:45/0:15", "list": [1, -2.5e3, true, null, "\u00e9\ud83d\ude00"]}"#.utf8)
        await propertyCheck(count: 2000, input: Gen.int(in: 0...(base.count - 1)), Gen.int(in: 0...255)) { at, byte in
            var bytes = base
            bytes[at] = UInt8(byte)
            Self.readOrRefuse(bytes)
        }
    }

    #endif

    /// 5,000 generated malformed request lines: each is refused with a one-line error, none
    /// crashes or hangs the reader.
    @Test func theMalformedCorpusIsRefusedLineByLine() {
        let seed = getenv("MALFORMED_SEED").flatMap { UInt64(String(cString: $0)) } ?? UInt64.random(in: 0...UInt64.max)
        print("JSONPropertyTests.theMalformedCorpusIsRefusedLineByLine seed \(seed) (replay: MALFORMED_SEED=\(seed))")
        var corpus = MalformedRequests(seed: seed)
        for index in 0..<5000 {
            let line = corpus.next()
            do throws(ControlError) {
                let request = try ControlRequest.parse(line)
                Issue.record("line \(index) accepted as \(request): \(String(decoding: line, as: UTF8.self)) (seed \(seed))")
            } catch {
                #expect(!error.description.contains("\n") && !error.description.isEmpty)
            }
        }
    }
}
