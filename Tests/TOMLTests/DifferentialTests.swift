import Foundation
import Testing
import TOML

/// The reader against Python's tomllib on generated documents (Tests/TOMLTests/generate_corpus.py):
/// accept/reject must agree, and accepted documents must give the same value tree.
@Suite struct DifferentialTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    struct Case {
        var id: Int
        var bytes: [UInt8]
        var expected: String?
    }

    /// Reads the generator's records: `doc ID accept|reject N\n` + N bytes + `\n` [+ `canon N\n` + N bytes + `\n`].
    static func cases(_ data: [UInt8]) -> [Case] {
        var out: [Case] = []
        var pos = 0
        func line() -> [Substring] {
            let end = data[pos...].firstIndex(of: UInt8(ascii: "\n")) ?? data.count
            defer { pos = end + 1 }
            return String(decoding: data[pos..<end], as: UTF8.self).split(separator: " ")
        }
        func block(_ count: Int) -> [UInt8] {
            defer { pos += count + 1 }
            return Array(data[pos..<pos + count])
        }
        while pos < data.count {
            let head = line()
            guard head.count == 4, head[0] == "doc", let id = Int(head[1]), let n = Int(head[3]) else { break }
            var item = Case(id: id, bytes: block(n), expected: nil)
            if head[2] == "accept" {
                let canon = line()
                guard canon.count == 2, let m = Int(canon[1]) else { break }
                item.expected = String(decoding: block(m), as: UTF8.self)
            }
            out.append(item)
        }
        return out
    }

    /// Every disagreement, as one readable line each.
    static func disagreements(_ cases: [Case]) -> [String] {
        print("DifferentialTests: \(cases.count) documents, \(cases.filter { $0.expected != nil }.count) valid by tomllib")
        return cases.compactMap { item in
            let shown = String(decoding: item.bytes.prefix(200), as: UTF8.self).debugDescription
            do {
                let table = try TOML.parse(bytes: item.bytes)
                guard let expected = item.expected else { return "doc \(item.id): accepted, tomllib rejects: \(shown)" }
                let got = canonical(.table(table))
                return got == expected ? nil : "doc \(item.id): value differs: \(shown)\n  tomllib: \(expected)\n  ours:    \(got)"
            } catch {
                guard item.expected != nil else { return nil }
                return "doc \(item.id): rejected (\(error)), tomllib accepts: \(shown)"
            }
        }
    }

    @Test func committedCorpusAgreesWithTomllib() throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent("Corpus/corpus.bin"))
        let cases = Self.cases(Array(data))
        #expect(cases.count >= 1000)
        #expect(cases.filter { $0.expected != nil }.count >= 300, "valid documents are well represented")
        let bad = Self.disagreements(cases)
        #expect(bad.isEmpty, "\(bad.count) disagreements:\n\(bad.prefix(20).joined(separator: "\n"))")
    }

    /// Whether `python3` with `tomllib` (Python 3.11 and later) runs here: the generator needs it.
    static let pythonHasTomllib: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import tomllib"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// A corpus generated now, from a fixed seed (printed; `TOML_DIFF_SEED=<seed>` picks
    /// another), `TOML_DIFF_COUNT` documents (3000 by default). Skipped, visibly, without
    /// python3 and tomllib; the committed corpus above runs everywhere.
    @Test(.enabled(if: pythonHasTomllib, "needs python3 with tomllib"))
    func freshCorpusAgreesWithTomllib() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["TOML_DIFF_SEED"].flatMap(UInt32.init) ?? 20_261_125
        let count = environment["TOML_DIFF_COUNT"].flatMap(Int.init) ?? 3000
        print("DifferentialTests.freshCorpus seed \(seed) (replay: TOML_DIFF_SEED=\(seed))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.directory.appendingPathComponent("generate_corpus.py").path, "--seed", "\(seed)", "--count", "\(count)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "generate_corpus.py --seed \(seed) failed")
        let cases = Self.cases(Array(data))
        #expect(cases.count >= count * 9 / 10)
        let bad = Self.disagreements(cases)
        #expect(bad.isEmpty, "seed \(seed): \(bad.count) disagreements:\n\(bad.prefix(20).joined(separator: "\n"))")
    }
}
