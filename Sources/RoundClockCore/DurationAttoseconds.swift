#if compiler(<6.2)
/// `Duration.attoseconds` and `Duration(attoseconds:)` as Swift 6.2's standard library has
/// them (SE-0457, "Expose attosecond representation of Duration"), for Swift 6.0 and 6.1
/// (Debian trixie's `swiftlang` is 6.0.3, issue 13). Built from the public
/// `components` / `init(secondsComponent:attosecondsComponent:)` pair, whose seconds and
/// attoseconds carry the same sign (truncating division), so the round trip is exact for
/// every duration whose whole seconds fit an `Int64` (292 billion years); beyond that the
/// seconds saturate instead of trapping.
extension Duration {
    /// The duration in attoseconds (10⁻¹⁸ s).
    public var attoseconds: Int128 {
        let (seconds, attoseconds) = components
        return Int128(seconds) * 1_000_000_000_000_000_000 + Int128(attoseconds)
    }

    /// A duration of exactly `attoseconds` attoseconds (10⁻¹⁸ s).
    public init(attoseconds: Int128) {
        let (seconds, rest) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000_000_000)
        self.init(secondsComponent: Int64(clamping: seconds), attosecondsComponent: Int64(rest))
    }
}
#endif
