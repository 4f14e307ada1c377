/// A generated corpus of control socket request lines that must all be refused
/// (docs/control-protocol.md): cut short, bad UTF-8, unknown commands, wrong types, extra or
/// duplicate members, lone surrogates, raw control characters, nesting past the limit,
/// random bytes, and lines past the 4 KiB limit. No line holds a newline (0x0A): each is
/// one request. The same seed gives the same corpus.
public struct MalformedRequests {
    public var rng: SplitMix64

    public init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    static let valid = [#"{"command": "start"}"#, #"{"command": "subscribe"}"#, #"{"command": "program", "program": "tabata"}"#,
                        #"{"command":"hold-stop"}"#, #" { "command" : "reset" } "#, #"{"command": "adjust", "seconds": -10}"#,
                        #"{"command": "back"}"#]
    static let badUTF8: [[UInt8]] = [[0xFF], [0xFE], [0xC0, 0xAF], [0xC1, 0xBF], [0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80],
                                     [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x80, 0xAF]]
    static let wrongShapes = [
        #"{"command": 5}"#, #"{"command": null}"#, #"{"command": true}"#, #"{"command": ["start"]}"#, #"{"command": {}}"#,
        #"[]"#, #""start""#, #"42"#, #"null"#, #"{}"#, #"{"Command": "start"}"#, #"{"command": "program"}"#,
        #"{"command": "program", "program": 7}"#, #"{"command": "program", "program": ""}"#, #"{"command": "start", "x": 1}"#,
        #"{"command": "start", "command": "stop"}"#, #"{"command": "\ud800"}"#, #"{"command": "\udc00x"}"#, #"{"command": "st\art"}"#,
        #"{"command": "start",}"#, #"{"command": 'start'}"#, #"{command: "start"}"#, #"{"command": "start"} x"#, "",
        #"{"command": 01}"#, #"{"command": -}"#, #"{"command": 1.}"#, #"{"command": NaN}"#,
        #"{"command": "adjust"}"#, #"{"command": "adjust", "seconds": 0}"#, #"{"command": "adjust", "seconds": 601}"#,
        #"{"command": "adjust", "seconds": 2.5}"#, #"{"command": "adjust", "seconds": "10"}"#, #"{"command": "adjust", "seconds": -0}"#,
        #"{"command": "back", "seconds": 10}"#, #"{"command": "adjust", "seconds": 10, "seconds": 20}"#,
    ]

    /// The next malformed line.
    public mutating func next() -> [UInt8] {
        switch rng.next() % 9 {
        case 0:  // a valid request cut short: no prefix of an object is one
            let line = Array(rng.pick(Self.valid).utf8).drop { $0 == 0x20 }
            let trimmed = Array(line.reversed().drop { $0 == 0x20 }.reversed())
            return Array(trimmed.prefix(Int(rng.next() % UInt64(trimmed.count))))
        case 1:  // bad UTF-8 somewhere in a valid request
            var line = Array(rng.pick(Self.valid).utf8)
            line.insert(contentsOf: rng.pick(Self.badUTF8), at: Int(rng.next() % UInt64(line.count + 1)))
            return line
        case 2:  // an unknown command
            let letters = Array("abcdefghijklmnopqrstuvwxyz-".utf8)
            var word = (0..<(1 + rng.next() % 12)).map { _ in rng.pick(letters) }
            if ["start", "stop", "reset", "mode", "hold-stop", "skip", "adjust", "back", "program", "subscribe", "version", "adopt"].contains(String(decoding: word, as: UTF8.self)) {
                word.append(UInt8(ascii: "x"))
            }
            return Array(#"{"command": ""#.utf8) + word + Array(#""}"#.utf8)
        case 3:
            return Array(rng.pick(Self.wrongShapes).utf8)
        case 4:  // a raw control character inside the command's string
            var line = Array(#"{"command": "start"}"#.utf8)
            line.insert(rng.pick([0x00, 0x01, 0x09, 0x0D, 0x1B, 0x1F]), at: 14)
            return line
        case 5:  // nested past the limit
            let depth = 9 + Int(rng.next() % 60)
            return Array(#"{"command": "#.utf8) + Array(repeating: UInt8(ascii: "["), count: depth)
                + Array(repeating: UInt8(ascii: "]"), count: depth) + [UInt8(ascii: "}")]
        case 6:  // past 4 KiB, otherwise well formed
            let pad = 4097 + Int(rng.next() % 20_000)
            return Array(#"{"command": "start", "pad": ""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: pad) + Array(#""}"#.utf8)
        case 7:  // random bytes, never a newline; '{' first so it is not a bare number by chance
            return [UInt8(ascii: "{")] + (0..<(rng.next() % 200)).map { _ in
                let byte = UInt8(truncatingIfNeeded: rng.next())
                return byte == 0x0A ? 0x0B : byte
            }
        default:  // a valid request with a stray byte where JSON allows none
            var line = Array(#"{"command": "start"}"#.utf8)
            line.insert(rng.pick(Array("x#;'=\\".utf8)), at: rng.pick([1, 11, 19, 20]))
            return line
        }
    }
}
