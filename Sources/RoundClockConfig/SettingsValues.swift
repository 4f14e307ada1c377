import RoundClockCore
import TOML

extension Config {
    /// The value of each key the setup page sets (`SettingsLayer.keys`), as this config holds
    /// it (from the file, the page or the built-in defaults), written as the file would.
    public var settingsValues: [(key: String, value: TOMLValue)] {
        let board: TOMLValue = switch self.board {
        case .simulator: .string("simulator")
        case .file(let path): .string(path)
        }
        let starts = classStarts?.secondsOfDay.map { TOMLValue.string(Self.timeOfDay(seconds: $0)) } ?? []
        return [
            ("board", board),
            ("program", .string(program.name)),
            ("start_at", .array(starts)),
            ("brightness.day", .integer(Int64(brightness.day))),
            ("brightness.night", .integer(Int64(brightness.night))),
            ("brightness.night_from", .string(BrightnessSchedule.text(minuteOfDay: brightness.nightFrom))),
            ("brightness.day_from", .string(BrightnessSchedule.text(minuteOfDay: brightness.dayFrom))),
            ("idle.clock_after_minutes", .integer(idleClockAfter.map { $0.components.seconds / 60 } ?? 0)),
            ("display.cadence", .string(cadence.rawValue)),
        ]
    }

    /// The settings a running clock takes without setting its panels up again; `program`
    /// only if it differs from `previous`'s.
    public func clockSettings(since previous: Config) -> ClockSettings {
        ClockSettings(program: program == previous.program ? nil : program, classStarts: classStarts,
                      brightness: brightness, idleClockAfter: idleClockAfter, cadence: cadence)
    }

    /// `HH:MM`, or `HH:MM:SS` when the seconds are not 0.
    static func timeOfDay(seconds s: Int) -> String {
        [s / 3600, s / 60 % 60, s % 60].prefix(s % 60 == 0 ? 2 : 3).map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }
}
