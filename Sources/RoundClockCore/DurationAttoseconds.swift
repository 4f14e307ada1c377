#if compiler(<6.2)
/// `Duration.attoseconds` and `Duration(attoseconds:)` as Swift 6.2's standard library has
/// them (SE-0457, "Expose attosecond representation of Duration"), for Swift 6.0 and 6.1
/// (Debian trixie's `swiftlang` is 6.0.3; docs/install.md). Read from and written to the two halves
/// of the 128-bit attosecond count that `Duration` stores (`_high`, `_low`, public in the
/// standard library since Swift 5.7), so every duration round-trips exactly; `components`
/// would trap for durations beyond `Int64.max` seconds, which the saturating arithmetic of
/// DurationMath.swift meets.
extension Duration {
    /// The duration in attoseconds (10⁻¹⁸ s).
    public var attoseconds: Int128 {
        (Int128(_high) << 64) | Int128(_low)
    }

    /// A duration of exactly `attoseconds` attoseconds (10⁻¹⁸ s).
    public init(attoseconds: Int128) {
        self.init(_high: Int64(truncatingIfNeeded: attoseconds >> 64), low: UInt64(truncatingIfNeeded: attoseconds))
    }
}
#endif
