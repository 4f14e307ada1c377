/// A small seeded random number generator (SplitMix64, Steele, Lea and Flood 2014): the
/// same sequence for the same seed on every machine, so a randomized test that prints its
/// seed can be replayed exactly. For tests only; no product links this target.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One of `items` (not empty), uniformly up to modulo bias.
    public mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }

    /// True `percent` times in a hundred.
    public mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }

    /// `bytes` with up to 3 edits: a byte dropped, doubled, or replaced by one of `noise`.
    public mutating func mutated(_ bytes: [UInt8], noise: [UInt8]) -> [UInt8] {
        var out = bytes
        for _ in 0..<Int(next() % 4) where !out.isEmpty {
            let at = Int(next() % UInt64(out.count))
            switch next() % 3 {
            case 0: out.remove(at: at)
            case 1: out.insert(out[at], at: at)
            default: out[at] = pick(noise)
            }
        }
        return out
    }
}
