/// Time texts for time panels of 6 (and 8) digits, colons wired after the 2nd and 4th
/// digit (`HH:MM:SS`): the 4-digit texts below one hour, right-aligned so their colon is
/// the second one (`9:59`, `59:59`); from one hour `H:MM:SS` up to `99:59:59` (no blinking
/// colon); with cadence `live` below one hour `MM:SS.t`, tenths, on the first five digits
/// (the sixth dark: the colon after the 2nd digit separates minutes from seconds).
/// Cadence `minutes` shows `H:MM` as on 4 digits. Countdowns show the ceiling, count-ups
/// the floor. The wall clock shows `HH:MM:SS`.
extension PanelTime {
    static let tenth = Duration.milliseconds(100)
    /// Seconds at which `M:SS` gives way to `H:MM:SS`, and tenths end (one hour).
    static let sixDigitHoursFrom: Int64 = 3600
    /// Largest value 6 digits show: 99:59:59.
    static let sixDigitMaximum: Int64 = 99 * 3600 + 59 * 60 + 59

    /// A countdown on `digits` positions (4: `countdown(_:cadence:)`).
    public static func countdown(_ remaining: Duration, cadence: Cadence, digits: Int) -> PanelReading {
        guard digits >= 6 else { return countdown(remaining, cadence: cadence) }
        let r = shown(remaining)
        if r == .zero || cadence == .minutes { return countdown(remaining, cadence: cadence) }
        if cadence == .live, r.ceilDivided(by: tenth) < sixDigitHoursFrom * 10 {
            let t = r.ceilDivided(by: tenth)
            return PanelReading(text: minutesSecondsTenths(t), changesIn: r - tenth * (t - 1))
        }
        let s = r.ceilSeconds
        var changesIn = r - Duration.wholeSeconds(s - 1)
        if cadence == .live, r > tenth * (sixDigitHoursFrom * 10 - 1) {
            changesIn = min(changesIn, r - tenth * (sixDigitHoursFrom * 10 - 1))
        }
        return PanelReading(text: hoursMinutesSeconds(s), changesIn: changesIn)
    }

    /// A count-up on `digits` positions (4: `countUp(_:cadence:)`).
    public static func countUp(_ elapsed: Duration, cadence: Cadence, digits: Int) -> PanelReading {
        guard digits >= 6, cadence != .minutes else { return countUp(elapsed, cadence: cadence) }
        let u = shown(elapsed)
        if cadence == .live, u < .seconds(sixDigitHoursFrom) {
            let t = u.floorDivided(by: tenth)
            return PanelReading(text: minutesSecondsTenths(t), changesIn: tenth * (t + 1) - u)
        }
        let s = u.floorSeconds
        return PanelReading(text: hoursMinutesSeconds(s), changesIn: Duration.wholeSeconds(s + 1) - u)
    }

    /// `M:SS`/`MM:SS` below an hour, then `H:MM:SS`/`HH:MM:SS`, at most `99:59:59`.
    static func hoursMinutesSeconds(_ seconds: Int64) -> String {
        let s = min(seconds, sixDigitMaximum)
        guard s >= sixDigitHoursFrom else { return minutesSeconds(s) }
        return String(s / 3600) + ":" + twoDigits(s / 60 % 60) + ":" + twoDigits(s % 60)
    }

    /// `MM:SS.t ` (minutes' leading zero blank, sixth digit dark) from tenths of a second.
    static func minutesSecondsTenths(_ tenths: Int64) -> String {
        minutesSeconds(tenths / 10) + "." + String(tenths % 10) + " "
    }

    /// 24-hour wall clock `HH:MM:SS` from the time since local midnight (6-digit panels).
    static func clockWithSeconds(timeOfDay: Duration) -> String {
        let s = timeOfDay.positiveRemainder(dividingBy: .seconds(86_400)).floorSeconds
        return twoDigits(s / 3600) + ":" + twoDigits(s / 60 % 60) + ":" + twoDigits(s % 60)
    }
}
