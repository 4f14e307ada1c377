/// `[brightness]`: the day level, and a night level between `night_from` and `day_from`
/// (local wall time; the interval may wrap past midnight).
public struct BrightnessSchedule: Sendable, Hashable {
    /// HT16K33 dimming level 0–15 (0 is the dimmest, not off).
    public var day: UInt8 = 15
    public var night: UInt8 = 15
    /// Minutes since local midnight.
    public var nightFrom: Int = 22 * 60
    public var dayFrom: Int = 7 * 60
    public init() {}

    public init(day: UInt8, night: UInt8, nightFrom: Int, dayFrom: Int) {
        self.day = day
        self.night = night
        self.nightFrom = nightFrom
        self.dayFrom = dayFrom
    }

    /// Whether `minuteOfDay` (0..<1440) falls in the night interval `[nightFrom, dayFrom)`.
    public func isNight(minuteOfDay: Int) -> Bool {
        let m = ((minuteOfDay % 1440) + 1440) % 1440
        if nightFrom < dayFrom { return m >= nightFrom && m < dayFrom }
        return m >= nightFrom || m < dayFrom
    }

    /// The level at a local wall time; re-evaluate on the every-minute schedule.
    public func level(at wallTime: WallTime) -> UInt8 {
        let minute = Int(wallTime.timeOfDay.components.seconds / 60)
        return isNight(minuteOfDay: minute) ? night : day
    }

    /// The next instant on the minute at which the level changes: the next `night_from`
    /// or `day_from` after `wallTime` (the every-minute schedule, filtered to the two
    /// minutes that matter). `nil` if day and night levels are equal.
    public func nextSwitch(after wallTime: WallTime) -> WallTime? {
        guard day != night else { return nil }
        let dayStart = WallTime(sinceEpoch: wallTime.sinceEpoch - wallTime.timeOfDay)
        let candidates = [nightFrom, dayFrom].flatMap { m in
            [0, 1].map { dayStart.advanced(by: .seconds(Int64(m * 60 + $0 * 86_400))) }
        }
        return candidates.filter { $0 > wallTime }.min()
    }

    /// `HH:MM` for a minute of the day.
    public static func text(minuteOfDay m: Int) -> String {
        let h = m / 60, mm = m % 60
        return "\(h < 10 ? "0" : "")\(h):\(mm < 10 ? "0" : "")\(mm)"
    }
}
