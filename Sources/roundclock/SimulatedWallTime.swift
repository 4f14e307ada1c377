import ArgumentParser
import RoundClockCore
import RoundClockService

/// `--wall-time HH:MM[:SS]` of `simulate` and `run --simulate`, and the local wall time a
/// run shows (clock mode, idle clock, the brightness schedule): on hardware the system's.
enum SimulatedWallTime {
    /// Parses `HH:MM` or `HH:MM:SS`, two digits each (`TimeText.timeOfDay`); anything
    /// else is a usage error naming the option.
    static func parse(_ text: String) throws -> WallTime {
        guard let timeOfDay = TimeText.timeOfDay(text, withSeconds: true) else {
            throw ValidationError("bad --wall-time \"\(text)\": expected HH:MM or HH:MM:SS, two digits each, 00:00 to 23:59:59, e.g. 18:30")
        }
        return WallTime(sinceEpoch: timeOfDay)
    }

    /// The wall time at each instant of a run that started at `start`. With a fixed start
    /// (`startWall`) or in virtual time it moves with the run's clock from `startWall`
    /// (default: the system's wall time now); otherwise it is the system's wall time.
    static func source<Instant: InstantProtocol & Sendable>(start: Instant, startWall: WallTime?, virtual: Bool)
        -> @Sendable (Instant) -> WallTime where Instant.Duration == Duration {
        guard virtual || startWall != nil else { return { _ in SystemWallClock.now() } }
        let wallAtStart = startWall ?? SystemWallClock.now()
        return { wallAtStart.advanced(by: start.duration(to: $0)) }
    }
}
