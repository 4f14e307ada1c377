/// What display RAM holds after power-up or power loss (HT16K33 datasheet: RAM
/// content is undefined at power-on).
public enum RAMGarbage: Sendable, Equatable {
    /// Repeats the pattern over the 16 bytes (an empty pattern gives zeros).
    case pattern([UInt8])
    /// Pseudo-random bytes, reproducible from the seed (SplitMix64).
    case random(seed: UInt64)

    /// The 16 garbage bytes.
    public func bytes() -> [UInt8] {
        switch self {
        case let .pattern(pattern):
            guard !pattern.isEmpty else { return Array(repeating: 0, count: 16) }
            return (0..<16).map { pattern[$0 % pattern.count] }
        case let .random(seed):
            var state = seed
            return (0..<16).map { _ in
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return UInt8(truncatingIfNeeded: z ^ (z >> 31))
            }
        }
    }
}
