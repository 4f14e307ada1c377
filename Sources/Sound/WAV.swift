/// WAV files: the user's own sounds (16-bit PCM, mono or stereo, 8–192 kHz) and the sound
/// track `simulate --virtual --sound-file` writes. Anything else is refused in one line that
/// says what the file is and what to use.
public enum WAV {
    /// Largest file read: about three minutes of 48 kHz stereo.
    public static let maximumBytes = 32 << 20
    public static let rates = 8_000...192_000

    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// The samples of a WAV file's bytes; `limit` bounds the size (a user's sound: `maximumBytes`).
    public static func parse(_ bytes: [UInt8], limit: Int = maximumBytes) throws(Problem) -> PCM {
        guard bytes.count <= limit else { throw Problem(description: "over \(limit >> 20) MiB; use a shorter sound") }
        guard bytes.count >= 12, ascii(bytes, 0) == "RIFF", ascii(bytes, 8) == "WAVE" else {
            throw Problem(description: "not a WAV file (no RIFF/WAVE header); use 16-bit PCM WAV")
        }
        var format: (channels: Int, rate: Int, bits: Int)?
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = ascii(bytes, offset)
            let size = Int(le32(bytes, offset + 4))
            let body = offset + 8
            guard size <= bytes.count - body else {
                throw Problem(description: "its \(shown(id)) chunk runs past the end of the file (\(size) bytes, \(bytes.count - body) left)")
            }
            if id == "fmt " {
                format = try fmt(Array(bytes[body..<body + size]))
            } else if id == "data" {
                guard let format else { throw Problem(description: "its data comes before its fmt chunk") }
                let frameBytes = format.channels * 2
                let usable = size - size % frameBytes
                var samples = [Int16](repeating: 0, count: usable / 2)
                for i in 0..<samples.count { samples[i] = Int16(bitPattern: UInt16(bytes[body + 2 * i]) | UInt16(bytes[body + 2 * i + 1]) << 8) }
                guard !samples.isEmpty else { throw Problem(description: "it holds no samples") }
                return PCM(rate: format.rate, channels: format.channels, samples: samples)
            }
            // Chunks are padded to an even length.
            offset = body + size + (size & 1)
        }
        throw Problem(description: format == nil ? "it has no fmt chunk" : "it has no data chunk")
    }

    private static func fmt(_ body: [UInt8]) throws(Problem) -> (channels: Int, rate: Int, bits: Int) {
        guard body.count >= 16 else { throw Problem(description: "its fmt chunk is \(body.count) bytes, under 16") }
        var tag = Int(le16(body, 0))
        // WAVE_FORMAT_EXTENSIBLE names the real format in its sub-format GUID's first two bytes.
        if tag == 0xFFFE, body.count >= 26 { tag = Int(le16(body, 24)) }
        let channels = Int(le16(body, 2)), rate = Int(le32(body, 4)), bits = Int(le16(body, 14))
        let names = [3: "32-bit float", 2: "ADPCM", 6: "A-law", 7: "µ-law", 0x55: "MP3"]
        guard tag == 1 else {
            throw Problem(description: "\(names[tag].map { "\($0) samples" } ?? "format \(tag)"), not PCM; use 16-bit PCM")
        }
        guard bits == 16 else { throw Problem(description: "\(bits)-bit samples; use 16-bit PCM") }
        guard channels == 1 || channels == 2 else { throw Problem(description: "\(channels) channels; use mono or stereo") }
        guard rates.contains(rate) else { throw Problem(description: "\(rate) Hz; use 8000 to 192000 Hz") }
        return (channels, rate, bits)
    }

    /// A canonical 44-byte-header WAV file of `pcm`.
    public static func encode(_ pcm: PCM) -> [UInt8] {
        let dataBytes = pcm.samples.count * 2
        var out: [UInt8] = []
        out.reserveCapacity(44 + dataBytes)
        out += Array("RIFF".utf8) + le(UInt32(36 + dataBytes), 4) + Array("WAVE".utf8)
        out += Array("fmt ".utf8) + le(16, 4) + le(1, 2) + le(UInt32(pcm.channels), 2) + le(UInt32(pcm.rate), 4)
        out += le(UInt32(pcm.rate * pcm.channels * 2), 4) + le(UInt32(pcm.channels * 2), 2) + le(16, 2)
        out += Array("data".utf8) + le(UInt32(dataBytes), 4)
        for sample in pcm.samples {
            let bits = UInt16(bitPattern: sample)
            out.append(UInt8(bits & 0xFF))
            out.append(UInt8(bits >> 8))
        }
        return out
    }

    private static func le(_ value: UInt32, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8((value >> (8 * UInt32($0))) & 0xFF) }
    }

    private static func le16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }

    private static func le32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    private static func ascii(_ b: [UInt8], _ at: Int) -> String {
        String(decoding: b[at..<at + 4], as: UTF8.self)
    }

    /// A chunk id as the error shows it: printable ASCII as is, anything else as `?`.
    private static func shown(_ id: String) -> String {
        "\"" + String(id.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }) + "\""
    }
}
