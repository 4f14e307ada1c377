import Panels
import RoundClockCore
import RoundClockService

/// Baseline A, the "display link": a refresh loop at a fixed rate (60 Hz) that redraws
/// from the session anchor on every tick and commits only when the face changed. It is
/// drift-free (it derives the face from `now - anchor`), but a change is only seen at the
/// first tick after its boundary: late by up to one period, about half a period on average,
/// plus the wake-up latency.
///
/// It sleeps one period relative to its previous wake-up (`Task.sleep(for:)`, default
/// tolerance), as such loops usually do, so its phase against the anchor wanders and the
/// lateness samples the whole 0 ..< period range, as a display link whose vsync phase is
/// unrelated to when the round started would.
public struct RefreshLoop<C: Clock>: Sendable where C: Sendable, C.Duration == Duration, C.Instant: Sendable {
    public var clock: C
    public var anchor: C.Instant
    public var program: Program
    public var display: any FaceDisplay
    public var period: Duration = .nanoseconds(16_666_667)

    public init(clock: C, anchor: C.Instant, program: Program, display: any FaceDisplay, period: Duration = .nanoseconds(16_666_667)) {
        self.clock = clock
        self.anchor = anchor
        self.program = program
        self.display = display
        self.period = period
    }

    /// Runs until `end`; returns the number of wake-ups. Commits go to `log`.
    public func run(until end: C.Instant, log: CommitLog) async -> Int {
        var controller = Controller<C.Instant>(program: program)
        _ = controller.perform(.start, at: anchor)
        let wall = WallTime(hour: 12, minute: 0)
        var shown: Face?
        var wakeUps = 0
        while !Task.isCancelled {
            let now = clock.now
            let face = controller.face(at: now, wallTime: wall)
            if face != shown, await display.show(face).retryAfter == nil {
                log.record(Commit(at: anchor.duration(to: clock.now), face: face))
                shown = face
            }
            if now >= end { break }
            do { try await clock.sleep(until: now.advanced(by: period), tolerance: nil) } catch { break }
            wakeUps += 1
        }
        return wakeUps
    }
}

/// Baseline B, the beginner's timer: show the start value, then forever sleep one second
/// (`Task.sleep(for: .seconds(1))`, relative) and decrement a counter. Each sleep returns
/// a little late and that lateness accumulates; a stall of the loop (a blocked thread, a
/// paused process) is never made up: the counter just resumes where it was.
///
/// The counter indexes the ideal `Timeline` (one entry per displayed second), so the face
/// it shows is exactly what a correct clock shows for that counter value. One stall of
/// `stall.length` is injected after tick `stall.tick` (an `await`ed sleep, so it stalls this
/// loop only and does not block a thread of the shared pool the other loops run on).
public struct TickCounter<C: Clock>: Sendable where C: Sendable, C.Duration == Duration, C.Instant: Sendable {
    public var clock: C
    public var anchor: C.Instant
    public var timeline: Timeline
    public var display: any FaceDisplay
    public var stall: (tick: Int, length: Duration)?

    public init(clock: C, anchor: C.Instant, timeline: Timeline, display: any FaceDisplay, stall: (tick: Int, length: Duration)?) {
        self.clock = clock
        self.anchor = anchor
        self.timeline = timeline
        self.display = display
        self.stall = stall
    }

    /// Runs until `end` (or the last timeline entry); returns (wake-ups, final counter).
    public func run(until end: C.Instant, log: CommitLog) async -> (wakeUps: Int, ticks: Int) {
        var ticks = 0
        var wakeUps = 0
        while !Task.isCancelled {
            if await display.show(timeline.entries[ticks].face).retryAfter == nil {
                log.record(Commit(at: anchor.duration(to: clock.now), face: timeline.entries[ticks].face))
            }
            guard ticks + 1 < timeline.entries.count else { break }
            do {
                // Like `Task.sleep(for: .seconds(1))`: relative to whenever it got here.
                try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil)
                wakeUps += 1
                if let stall, ticks + 1 == stall.tick {
                    try await clock.sleep(until: clock.now.advanced(by: stall.length), tolerance: nil)
                }
            } catch { break }
            if clock.now > end { break }
            ticks += 1
        }
        return (wakeUps, ticks)
    }
}
