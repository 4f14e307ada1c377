import Testing
import TestSupport
@testable import Sound

/// WAV files: what the clock writes reads back the same; the user's 16-bit PCM files read at
/// any common rate; everything else, and every damaged file of a generated corpus, is refused
/// in one line and never crashes.
@Suite struct WAVTests {
    /// A WAV file with the given fmt fields and data, chunk by chunk.
    static func file(tag: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 48_000, bits: UInt16 = 16,
                     data: [UInt8] = [1, 0, 2, 0], extra: [(String, [UInt8])] = []) -> [UInt8] {
        func le(_ v: UInt32, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }
        var fmt = le(UInt32(tag), 2) + le(UInt32(channels), 2) + le(rate, 4)
        fmt += le(rate * UInt32(channels) * UInt32(bits) / 8, 4) + le(UInt32(channels) * UInt32(bits) / 8, 2) + le(UInt32(bits), 2)
        var chunks: [UInt8] = []
        for (id, body) in extra + [("fmt ", fmt), ("data", data)] {
            chunks += Array(id.utf8) + le(UInt32(body.count), 4) + body + (body.count % 2 == 1 ? [0] : [])
        }
        return Array("RIFF".utf8) + le(UInt32(4 + chunks.count), 4) + Array("WAVE".utf8) + chunks
    }

    @Test func whatTheClockWritesReadsBackTheSame() throws {
        let pcm = PCM(rate: 44_100, channels: 2, samples: [0, -1, 32_767, -32_768, 1_234, -4_321])
        let bytes = WAV.encode(pcm)
        #expect(bytes.count == 44 + 12)
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[36..<40]) == Array("data".utf8))
        #expect(try WAV.parse(bytes) == pcm)
    }

    @Test func aFileWithOtherChunksAndAnOddChunkReads() throws {
        let bytes = Self.file(channels: 2, rate: 22_050, data: [1, 0, 2, 0, 3, 0, 4, 0], extra: [("LIST", [1, 2, 3])])
        #expect(try WAV.parse(bytes) == PCM(rate: 22_050, channels: 2, samples: [1, 2, 3, 4]))
    }

    @Test(arguments: [
        (file(tag: 3, bits: 32), "32-bit float samples, not PCM; use 16-bit PCM"),
        (file(tag: 0x55), "MP3 samples, not PCM; use 16-bit PCM"),
        (file(bits: 24, data: [0, 0, 0]), "24-bit samples; use 16-bit PCM"),
        (file(bits: 8, data: [0]), "8-bit samples; use 16-bit PCM"),
        (file(channels: 6, data: [UInt8](repeating: 0, count: 12)), "6 channels; use mono or stereo"),
        (file(rate: 4_000), "4000 Hz; use 8000 to 192000 Hz"),
        (file(data: []), "it holds no samples"),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI ".utf8), "not a WAV file (no RIFF/WAVE header); use 16-bit PCM WAV"),
        (Array("ID3".utf8), "not a WAV file (no RIFF/WAVE header); use 16-bit PCM WAV"),
    ])
    func otherFormatsAreRefusedInOneLine(_ bytes: [UInt8], _ message: String) {
        #expect(throws: WAV.Problem(description: message)) { try WAV.parse(bytes) }
    }

    @Test func aTruncatedDataChunkIsNamed() {
        let whole = Self.file(data: [UInt8](repeating: 7, count: 100))
        #expect(throws: WAV.Problem(description: "its \"data\" chunk runs past the end of the file (100 bytes, 50 left)")) {
            try WAV.parse(Array(whole.prefix(whole.count - 50)))
        }
    }

    /// Damaged copies of good files (bytes flipped, cut, inserted, sizes made huge): each
    /// reads as 16-bit PCM with a whole number of frames, or is refused in one line.
    @Test func damagedFilesReadOrAreRefusedInOneLine() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("WAVTests corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let good = [Self.file(channels: 2, data: [UInt8](repeating: 9, count: 64), extra: [("LIST", [1, 2, 3])]),
                    WAV.encode(BuiltInSound.tick.render(rate: 8_000))]
        for _ in 0..<5_000 {
            var bytes = random.pick(good)
            for _ in 0...Int(random.next() % 4) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 4 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes = Array(bytes.prefix(at))
                case 2: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                default: if at + 4 <= bytes.count { for i in 0..<4 { bytes[at + i] = 0xFF } }
                }
                if bytes.isEmpty { break }
            }
            do {
                let pcm = try WAV.parse(bytes)
                #expect(pcm.channels == 1 || pcm.channels == 2, "seed \(seed)")
                #expect(pcm.samples.count % pcm.channels == 0 && WAV.rates.contains(pcm.rate), "seed \(seed)")
            } catch {
                #expect(!error.description.contains("\n") && !error.description.isEmpty, "seed \(seed): \(error)")
            }
        }
    }
}
