/// Times as written in program specs, on the command line and in the config. Strict:
/// ASCII digits only (`WholeNumber`), no sign, no white space; after a colon, minutes and
/// seconds are exactly two digits below 60. Range-checked, so never a trap.
public enum TimeText {
    /// `M:SS`, `H:MM:SS`, or whole or decimal seconds (`45`, `2.5`, at most 9 decimals),
    /// if it is at most `maximum`; else `nil`.
    public static func parse(_ text: some StringProtocol, atMost maximum: Duration) -> Duration? {
        guard case .time(let value) = reading(text, secondsOnly: false), value <= maximum else { return nil }
        return value
    }

    /// Whole or decimal seconds with at most 9 decimals (`12`, `0.25`), at most `maximum`.
    public static func seconds(_ text: some StringProtocol, atMost maximum: Duration) -> Duration? {
        guard case .time(let value) = reading(text, secondsOnly: true), value <= maximum else { return nil }
        return value
    }

    /// Whether `text` is written correctly but longer than `maximum` (to say "at most" in an
    /// error instead of "expected M:SS").
    public static func isTooLong(_ text: some StringProtocol, atMost maximum: Duration, secondsOnly: Bool = false) -> Bool {
        switch reading(text, secondsOnly: secondsOnly) {
        case .time(let value): value > maximum
        case .tooLong: true
        case .malformed: false
        }
    }

    /// For `M:SS` or `H:MM:SS` written with two-digit fields of which one is 60 or more
    /// (`0:60`): which field it is (`seconds` or `minutes`) and the time it would carry to
    /// (`1:00`), so that an error can say how to write it. `nil` for any other text.
    public static func overflowingField(_ text: some StringProtocol) -> (field: String, carried: Duration)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, WholeNumber.isDigits(parts[0]), parts[0].utf8.count <= 6,
              parts.dropFirst().allSatisfy({ $0.utf8.count == 2 && WholeNumber.isDigits($0) }) else { return nil }
        let values = parts.map { WholeNumber.parse($0, atMost: 999_999) ?? 0 }
        guard let over = values.indices.dropFirst().last(where: { values[$0] >= 60 }) else { return nil }
        let total = values.reduce(Int64(0)) { $0 * 60 + $1 }
        return (over == parts.count - 1 ? "seconds" : "minutes", .seconds(total))
    }

    /// Local time of day `HH:MM`, or `HH:MM:SS` if `withSeconds`: exactly two digits each,
    /// 00:00 to 23:59(:59). The time since midnight, or `nil`.
    public static func timeOfDay(_ text: some StringProtocol, withSeconds: Bool) -> Duration? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || (withSeconds && parts.count == 3) else { return nil }
        var total: Int64 = 0
        for (index, field) in parts.enumerated() {
            guard field.utf8.count == 2, let n = WholeNumber.parse(field, atMost: index == 0 ? 23 : 59) else { return nil }
            total = total * 60 + n
        }
        return .seconds(parts.count == 2 ? total * 60 : total)
    }

    enum Reading: Equatable { case time(Duration), tooLong, malformed }

    /// The grammar, with values beyond `TimeLimits.maximumElapsed` read as `tooLong`
    /// before any arithmetic on them.
    static func reading(_ text: some StringProtocol, secondsOnly: Bool) -> Reading {
        let limit = TimeLimits.maximumElapsed.floorSeconds
        func number(_ field: some StringProtocol, atMost limit: Int64) -> Reading? {
            guard WholeNumber.isDigits(field) else { return .malformed }
            return WholeNumber.parse(field, atMost: limit) == nil ? .tooLong : nil
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count > 1 {
            guard !secondsOnly, parts.count <= 3,
                  parts.dropFirst().allSatisfy({ $0.utf8.count == 2 && WholeNumber.parse($0, atMost: 59) != nil }) else { return .malformed }
            if let problem = number(parts[0], atMost: limit) { return problem }
            let total = parts.reduce(Int64(0)) { $0 * 60 + (WholeNumber.parse($1, atMost: limit) ?? 0) }
            return total <= limit ? .time(.seconds(total)) : .tooLong
        }
        let halves = text.split(separator: ".", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return .malformed }
        var nanoseconds: Int64 = 0
        if halves.count == 2 {
            let fraction = halves[1]
            guard fraction.utf8.count <= 9, let value = WholeNumber.parse(fraction, atMost: 999_999_999) else { return .malformed }
            nanoseconds = value
            for _ in fraction.utf8.count..<9 { nanoseconds *= 10 }
        }
        if let problem = number(halves[0], atMost: limit) { return problem }
        return .time(.seconds(WholeNumber.parse(halves[0], atMost: limit) ?? 0) + .nanoseconds(nanoseconds))
    }
}
