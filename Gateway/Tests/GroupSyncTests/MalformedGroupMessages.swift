import TestSupport

/// A generated corpus of group-topic payloads that are not group messages (docs/sync.md):
/// cut short, bad UTF-8, each member missing or of a wrong type or out of range, unsafe
/// member ids, a running session without an anchor (or another with one), nesting, random
/// bytes, and payloads past 4 KiB up to 1 MB. The same seed gives the same corpus.
struct MalformedGroupMessages {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    static let valid: [(key: String, value: String)] = [
        ("version", "12"), ("member", #""ring1-north""#), ("program", #""boxing""#), ("run", #""running""#),
        ("elapsed_before_ns", "0"), ("anchor_realtime_ns", "1795412345678901234"), ("issued_realtime_ns", "1795412345678901234"),
    ]
    static let wrongValues: [String: [String]] = [
        "version": ["-1", "9007199254740992", "1.5", "1e3", #""12""#, "null", "true", "[]", "{}", "99999999999999999999999"],
        "member": ["", #""""#, #""a/b""#, #""a+b""#, "\"#\"", #""a b""#, #""\u0000""#, #""é""#, "\"" + String(repeating: "m", count: 65) + "\"", "7", "null"],
        "program": [#""""#, "\"" + String(repeating: "p", count: 1025) + "\"", "1", "null", "[\"boxing\"]"],
        "run": [#""finished""#, #""RUNNING""#, #""""#, "1", "null"],
        "elapsed_before_ns": ["-1", "3162240000000000001", "0.5", #""0""#, "null"],
        "anchor_realtime_ns": ["-5", "null", #""1795412345678901234""#, "1.795e18", "true"],
        "issued_realtime_ns": ["-1", "null", #""x""#, "2.5"],
    ]
    static let notObjects = ["[]", "null", "12", #""session""#, "", " ", "{", "}", "{}", "[{}]", #"{"version": 1,}"#,
                             #"{"version": 1 "member": "a"}"#, "{'version': 1}"]

    static func object(_ members: [(key: String, value: String)]) -> [UInt8] {
        Array(("{" + members.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}").utf8)
    }

    mutating func next() -> [UInt8] {
        var members = Self.valid
        switch rng.next() % 9 {
        case 0:  // a valid message cut short
            let whole = Self.object(members)
            return Array(whole.prefix(Int(rng.next() % UInt64(whole.count))))
        case 1:  // one member missing
            members.remove(at: Int(rng.next() % UInt64(members.count)))
            return Self.object(members)
        case 2:  // one member of a wrong type or out of range
            let i = Int(rng.next() % UInt64(members.count))
            guard let wrong = Self.wrongValues[members[i].key] else { return [] }
            members[i].value = rng.pick(wrong)
            return Self.object(members)
        case 3:  // paused or ready with an anchor
            members[3].value = rng.pick([#""paused""#, #""ready""#])
            return Self.object(members)
        case 4:  // bad UTF-8 inside
            var bytes = Self.object(members)
            bytes.insert(contentsOf: rng.pick([[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x80]] as [[UInt8]]),
                         at: 1 + Int(rng.next() % UInt64(bytes.count - 1)))
            return bytes
        case 5:
            return Array(rng.pick(Self.notObjects).utf8)
        case 6:  // past 4 KiB, otherwise well formed; sometimes 1 MB
            let pad = rng.chance(10) ? 1 << 20 : 4097 + Int(rng.next() % 20_000)
            members.append(("pad", "\"" + String(repeating: "a", count: pad) + "\""))
            return Self.object(members)
        case 7:  // a duplicate member, or nesting past the limit
            if rng.chance(50) { return Self.object(members + [rng.pick(members)]) }
            let depth = 5 + Int(rng.next() % 40)
            members.append(("extra", String(repeating: "[", count: depth) + String(repeating: "]", count: depth)))
            return Self.object(members)
        default:  // random bytes
            return [UInt8(ascii: "{")] + (0..<(rng.next() % 300)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        }
    }
}
