import ArgumentParser
import RoundClockCore
import RoundClockService

/// `--wall-time HH:MM[:SS]` of `simulate` and `run --simulate`, and the local wall time a
/// simulated run shows (clock mode, idle clock, the brightness schedule).
enum SimulatedWallTime {
    /// Parses `HH:MM` or `HH:MM:SS`; anything else is a usage error naming the option.
    static func parse(_ text: String) throws -> WallTime {
        let parts = text.split(separator: ":").map { Int($0) }
        guard (2...3).contains(parts.count), let h = parts[0], let m = parts[1], (0..<24).contains(h), (0..<60).contains(m),
              let s = parts.count == 3 ? parts[2] : 0, (0..<60).contains(s) else {
            throw ValidationError("bad --wall-time \"\(text)\": expected HH:MM or HH:MM:SS, e.g. 18:30")
        }
        return WallTime(hour: h, minute: m, second: s)
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
