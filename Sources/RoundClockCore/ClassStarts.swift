/// `start_at`: times of day at which a ready clock starts its program by itself (a class
/// at 06:00 and 18:30). The slots are wall-clock instants (docs/design.md: wall time only for the
/// clock and scheduling); the round itself then runs on the monotonic clock as always.
///
/// Never early, never twice: a slot starts only when the wall time read at that turn is at
/// or past it, and only if the clock had seen the wall time before it while running (the
/// high-water mark `seenUntil`, which an NTP step backwards never lowers, and which a
/// restart begins at the wall time of the restart, or at a saved one).
public struct ClassStarts: Sendable, Hashable {
    /// Seconds since local midnight, sorted, no duplicates.
    public let secondsOfDay: [Int]
    /// How late a slot may still start (a wall clock stepped forward across it, a loop
    /// woken late): it then starts anchored at the slot, as if on time. Later: skipped.
    public static let grace: Duration = .seconds(60)

    public init?(secondsOfDay: [Int]) {
        let sorted = Array(Set(secondsOfDay.filter { (0..<86_400).contains($0) })).sorted()
        guard !sorted.isEmpty else { return nil }
        self.secondsOfDay = sorted
    }

    /// The schedule's instants around `wall`, as `ExplicitSchedule` entries: yesterday's,
    /// today's and tomorrow's slots.
    func schedule(around wall: WallTime) -> ExplicitSchedule<WallTime> {
        let midnight = wall.sinceEpoch - wall.timeOfDay
        return ExplicitSchedule((-1...1).flatMap { day in
            secondsOfDay.map { WallTime(sinceEpoch: midnight + .seconds(day * 86_400 + $0)) }
        })
    }

    /// The next slot strictly after `wall`.
    public func next(after wall: WallTime) -> WallTime? { schedule(around: wall).next(after: wall) }

    /// The latest slot at or before `wall`.
    public func latest(atOrBefore wall: WallTime) -> WallTime? {
        schedule(around: wall).instants.last { $0 <= wall }
    }
}

extension Controller {
    /// Starts the session if a `start_at` slot is due at `wallTime` (the wall time at
    /// `now`): the session is ready, the slot is after everything seen before and at most
    /// `ClassStarts.grace` ago. The anchor is the slot's instant on the monotonic clock, so
    /// the round runs exactly on the wall-clock second. Called by the render loop each turn.
    public mutating func startOnSchedule(at now: Instant, wallTime: WallTime) -> [Occurrence<Instant>] {
        guard let classStarts, program.kind == .intervals else { return [] }
        let seen = classStartsArmed ? classStartsSeenUntil : nil
        classStartsArmed = true
        if classStartsSeenUntil.map({ $0 < wallTime }) ?? true { classStartsSeenUntil = wallTime }
        guard let seen, session.state(at: now) == .ready, let slot = classStarts.latest(atOrBefore: wallTime),
              seen < slot, slot.duration(to: wallTime) <= ClassStarts.grace else { return [] }
        setClassSlot(slot)
        var out = perform(.start, at: now.advanced(by: wallTime.duration(to: slot)))
        out += advance(to: now)
        return out
    }

    /// The instant of the next `start_at` slot that will start the session, as the wall time
    /// `wallTime` at `now` places it; nil without a schedule or unless the clock is ready.
    public func nextClassStart(at now: Instant, wallTime: WallTime) -> Instant? {
        guard let classStarts, program.kind == .intervals, session.state(at: now) == .ready else { return nil }
        let from = classStartsSeenUntil.map { max($0, wallTime) } ?? wallTime
        return classStarts.next(after: from).map { now.advanced(by: wallTime.duration(to: $0)) }
    }

    /// The ready face's time panel with `start_at`: `-M:SS` to the next slot (`-H:MM` from
    /// 10 minutes, `PanelTime.offset`), and when that changes.
    func classCountdown(at now: Instant, wallTime: WallTime) -> (text: String, change: Instant)? {
        // The next slot that will start: after the wall time and after any slot already started.
        let from = classStartsSeenUntil.map { max($0, wallTime) } ?? wallTime
        guard let classStarts, let next = classStarts.next(after: from) else { return nil }
        let reading = PanelTime.offset(next.duration(to: wallTime))
        let change = now.advanced(by: min(reading.changesIn ?? wallTime.duration(to: next), wallTime.duration(to: next)))
        return (reading.text, change)
    }
}
