/// Renders a time value onto the four digit positions of a time panel.
///
/// - Under 100 minutes: `mm:ss`, the leading tens-of-minutes zero blank (` 9:59`,
///   `10:00`, ` 0:05`).
/// - From 100 minutes: `H:MM` hours and minutes; since ` 1:40` alone would read as
///   1 min 40 s, the colon blinks at 1 Hz (lit in the first half of each second).
/// - Countdowns show the ceiling of the remaining time, count-ups the floor.
public enum PanelTime {
    static let second = Duration.seconds(1)
    static let halfSecond = Duration.milliseconds(500)
    static let minute = Duration.seconds(60)
    static let hundredth = Duration.milliseconds(10)
    /// Seconds at which `mm:ss` gives way to `H:MM` (100 minutes).
    static let hoursFrom: Int64 = 6000
    /// Largest value a panel can show in `H:MM`: 99:59.
    static let maximumMinutes: Int64 = 99 * 60 + 59

    /// A countdown showing `remaining` (negative counts as zero). At zero it stays.
    public static func countdown(_ remaining: Duration, cadence: Cadence = .seconds) -> PanelReading {
        let r = shown(remaining)
        if r == .zero { return PanelReading(text: minutesSeconds(0), changesIn: nil) }
        if cadence == .minutes {
            let m = r.ceilDivided(by: minute)
            return PanelReading(text: hoursMinutes(m, colon: true), changesIn: r - minute * (m - 1))
        }
        if cadence == .live, r.ceilDivided(by: hundredth) < 6000 {
            let h = r.ceilDivided(by: hundredth)
            return PanelReading(text: secondsHundredths(h), changesIn: r - hundredth * (h - 1))
        }
        let s = r.ceilSeconds
        if s < hoursFrom {
            var changesIn = r - Duration.wholeSeconds(s - 1)
            if cadence == .live, r > hundredth * 5999 { changesIn = min(changesIn, r - hundredth * 5999) }
            return PanelReading(text: minutesSeconds(s), changesIn: changesIn)
        }
        // Age of the displayed second: how long ago the ceiling took its current value.
        let age = Duration.wholeSeconds(s) - r
        let colon = age < halfSecond
        return PanelReading(text: hoursMinutes(r.ceilDivided(by: minute), colon: colon),
                            changesIn: colon ? halfSecond - age : second - age)
    }

    /// A count-up showing `elapsed` (negative counts as zero).
    public static func countUp(_ elapsed: Duration, cadence: Cadence = .seconds) -> PanelReading {
        let u = shown(elapsed)
        if cadence == .minutes {
            let m = u.floorDivided(by: minute)
            return PanelReading(text: hoursMinutes(m, colon: true), changesIn: minute * (m + 1) - u)
        }
        if cadence == .live, u < minute {
            let h = u.floorDivided(by: hundredth)
            return PanelReading(text: secondsHundredths(h), changesIn: hundredth * (h + 1) - u)
        }
        let s = u.floorSeconds
        if s < hoursFrom {
            return PanelReading(text: minutesSeconds(s), changesIn: Duration.wholeSeconds(s + 1) - u)
        }
        let fraction = u - Duration.wholeSeconds(s)
        let colon = fraction < halfSecond
        return PanelReading(text: hoursMinutes(s / 60, colon: colon),
                            changesIn: colon ? halfSecond - fraction : second - fraction)
    }

    /// Signed offset (docs/design.md, timing rules): `-` while the target is ahead, `+` from
    /// the target on; used for a class start's countdown and for overtime `+M:SS` after a
    /// capped program. Three digits follow the sign: `-M:SS` below 10 minutes, then `-H:MM`
    /// with the colon blinking.
    public static func offset(_ signed: Duration) -> PanelReading {
        let before = signed < .zero
        let magnitude = shown(before ? .zero - max(signed, .zero - TimeLimits.maximumElapsed) : signed)
        let sign = before ? "-" : "+"
        // Whole seconds shown: ceiling before the target (counting down), floor after.
        let s = before ? magnitude.ceilSeconds : magnitude.floorSeconds
        let fractionAge = before ? second * s - magnitude : magnitude - second * s
        let toNextSecond = second - fractionAge
        if s < 600 {
            let text = sign + String(s / 60) + ":" + twoDigits(s % 60)
            // Crossing zero flips the sign: from -0:01 the next change is at the target.
            return PanelReading(text: text, changesIn: toNextSecond)
        }
        let colon = fractionAge < halfSecond
        let m = min(s / 60, 9 * 60 + 59)
        let text = sign + String(m / 60) + (colon ? ":" : "") + twoDigits(m % 60)
        return PanelReading(text: text, changesIn: colon ? halfSecond - fractionAge : toNextSecond)
    }

    /// 24-hour wall clock `HH:MM` from the time since local midnight; the colon is lit in
    /// the first half of each second.
    public static func clock(timeOfDay: Duration) -> PanelReading {
        let t = timeOfDay.positiveRemainder(dividingBy: .seconds(86_400))
        let s = t.floorSeconds
        let fraction = t - Duration.wholeSeconds(s)
        let colon = fraction < halfSecond
        let text = fixed(s / 3600 / 10, s / 3600 % 10, colon ? ":" : nil, s / 60 % 60 / 10, s / 60 % 10, blankZero: false)
            ?? twoDigits(s / 3600) + (colon ? ":" : "") + twoDigits(s / 60 % 60)
        return PanelReading(text: text, changesIn: colon ? halfSecond - fraction : second - fraction)
    }

    /// `value` within `0 ... TimeLimits.maximumElapsed`: negative counts as zero, and
    /// anything longer (the panel shows 99:59 long before) cannot overflow the arithmetic.
    static func shown(_ value: Duration) -> Duration {
        min(max(value, .zero), TimeLimits.maximumElapsed)
    }

    // MARK: Fixed-position text

    static func minutesSeconds(_ seconds: Int64) -> String {
        let m = seconds / 60
        return fixed(m / 10, m % 10, ":", seconds % 60 / 10, seconds % 60 % 10, blankZero: true)
            ?? (m >= 10 ? String(m / 10) : " ") + String(m % 10) + ":" + twoDigits(seconds % 60)
    }

    static func hoursMinutes(_ minutes: Int64, colon: Bool) -> String {
        let m = min(minutes, maximumMinutes)
        let h = m / 60
        return fixed(h / 10, h % 10, colon ? ":" : nil, m % 60 / 10, m % 60 % 10, blankZero: true)
            ?? (h >= 10 ? String(h / 10) : " ") + String(h % 10) + (colon ? ":" : "") + twoDigits(m % 60)
    }

    static func secondsHundredths(_ hundredths: Int64) -> String {
        let s = hundredths / 100
        return fixed(s / 10, s % 10, ".", hundredths % 100 / 10, hundredths % 10, blankZero: true)
            ?? (s >= 10 ? String(s / 10) : " ") + String(s % 10) + "." + twoDigits(hundredths % 100)
    }

    /// Four digits 0...9 with `separator` (ASCII) after the second, a zero first digit
    /// blank if `blankZero`, written in place into a small string: no concatenation, no
    /// allocation (every face). nil if a digit is out of 0...9 (the callers then
    /// build the same text the long way).
    static func fixed(_ a: Int64, _ b: Int64, _ separator: Unicode.Scalar?, _ c: Int64, _ d: Int64,
                      blankZero: Bool) -> String? {
        let range: ClosedRange<Int64> = 0...9
        guard range.contains(a), range.contains(b), range.contains(c), range.contains(d) else { return nil }
        func ascii(_ digit: Int64) -> UInt8 { UInt8(ascii: "0") + UInt8(digit) }
        return String(unsafeUninitializedCapacity: 5) { buffer in
            buffer[0] = a == 0 && blankZero ? UInt8(ascii: " ") : ascii(a)
            buffer[1] = ascii(b)
            var count = 2
            if let separator {
                buffer[count] = UInt8(ascii: separator)
                count += 1
            }
            buffer[count] = ascii(c)
            buffer[count + 1] = ascii(d)
            return count + 2
        }
    }

    static func twoDigits(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
