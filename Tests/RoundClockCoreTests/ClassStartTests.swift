import Testing
@testable import RoundClockCore

/// `start_at`: a ready clock starts its program at a time of day, exactly on the wall-clock
/// second, never early and never twice, whatever the wall clock does.
@Suite struct ClassStartTests {
    let slot = WallTime(hour: 18, minute: 30)

    /// A ready countdown:1:00 with a class at 06:00 and 18:30 that has seen `seen`.
    func controller(seen: WallTime) -> Controller<T> {
        var c = Controller<T>(program: try! ProgramSpec.parse("countdown:1:00"))
        c.classStarts = ClassStarts(secondsOfDay: [6 * 3600, 18 * 3600 + 30 * 60])
        _ = c.startOnSchedule(at: .s(0), wallTime: seen)
        return c
    }

    func wall(_ h: Int, _ m: Int, _ s: Double) -> WallTime {
        WallTime(hour: h, minute: m).advanced(by: .s(s))
    }

    @Test func startsAtTheSlotAnchoredOnTheWallClockSecond() {
        var c = controller(seen: wall(18, 29, 50))
        #expect(c.face(at: .s(0), wallTime: wall(18, 29, 50)).time.text == "-0:10")
        #expect(c.nextDeadline(after: .s(0.5), wallTime: wall(18, 29, 50.5)) == .s(1), "the next wall second")
        #expect(c.nextDeadline(after: .s(9.5), wallTime: wall(18, 29, 59.5)) == .s(10), "the slot")
        #expect(actions(c.startOnSchedule(at: .s(9.999), wallTime: wall(18, 29, 59.999))) == [], "not a millisecond early")
        // The loop woke 300 ms late: the anchor is the slot's instant, not the wake-up.
        #expect(actions(c.startOnSchedule(at: .s(10.3), wallTime: wall(18, 30, 0.3))) == [.start])
        #expect(c.session.anchor == .s(10))
        #expect(c.face(at: .s(11), wallTime: wall(18, 30, 1)).time.text == " 0:59")
    }

    @Test func aWallClockSteppedBackNeverStartsEarlyNorTwice() {
        var c = controller(seen: wall(18, 29, 50))
        // The monotonic deadline came, but NTP had stepped the wall clock back 20 s.
        #expect(actions(c.startOnSchedule(at: .s(10), wallTime: wall(18, 29, 40))) == [])
        #expect(actions(c.startOnSchedule(at: .s(30), wallTime: wall(18, 30, 0))) == [.start])
        _ = c.perform(.reset, at: .s(40))
        // Stepped back again across the slot, after the class ran: no second start.
        #expect(actions(c.startOnSchedule(at: .s(50), wallTime: wall(18, 29, 55))) == [])
        #expect(actions(c.startOnSchedule(at: .s(55), wallTime: wall(18, 30, 0))) == [])
        #expect(c.session.state(at: .s(56)) == .ready)
        #expect(c.face(at: .s(56), wallTime: wall(18, 30, 1)).time.text == "-9:59", "counts to 06:00 tomorrow, -H:MM")
    }

    @Test func aRestartAfterTheSlotDoesNotStartItAndASavedMarkSurvivesAStaleClock() {
        var late = controller(seen: wall(18, 30, 20))
        #expect(actions(late.startOnSchedule(at: .s(1), wallTime: wall(18, 30, 21))) == [], "restarted after the slot: not started late")
        // A Pi without a real-time clock boots at a stale time before the slot it already ran.
        var stale = controller(seen: wall(18, 0, 0))
        stale.restoreClassStartsSeen(wall(18, 30, 5))
        #expect(actions(stale.startOnSchedule(at: .s(1800), wallTime: wall(18, 30, 0))) == [])
    }

    @Test func aForwardStepAcrossTheSlotStartsWithinTheGraceOnly() {
        var c = controller(seen: wall(18, 29, 50))
        #expect(actions(c.startOnSchedule(at: .s(11), wallTime: wall(18, 30, 40))) == [.start])
        #expect(c.session.elapsed(at: .s(11)) == .seconds(40), "anchored at the slot")
        var d = controller(seen: wall(18, 29, 50))
        #expect(actions(d.startOnSchedule(at: .s(11), wallTime: wall(18, 31, 1))) == [], "61 s late: skipped")
    }

    @Test func aSessionRunningAtTheSlotIsLeftAlone() {
        var c = controller(seen: wall(18, 29, 0))
        _ = c.perform(.start, at: .s(1))
        _ = c.perform(.pause, at: .s(20))
        #expect(actions(c.startOnSchedule(at: .s(60), wallTime: wall(18, 30, 0))) == [])
        #expect(c.session.state(at: .s(61)) == .paused)
        _ = c.perform(.reset, at: .s(62))
        #expect(actions(c.startOnSchedule(at: .s(63), wallTime: wall(18, 30, 3))) == [], "the slot passed while busy")
    }

    @Test func slotsWrapAroundMidnight() {
        let starts = ClassStarts(secondsOfDay: [6 * 3600, 23 * 3600 + 59 * 60])
        #expect(starts?.next(after: WallTime(hour: 23, minute: 59, second: 30)) == WallTime(hour: 6, minute: 0, day: 1))
        #expect(starts?.latest(atOrBefore: WallTime(hour: 0, minute: 0, second: 10, day: 1)) == WallTime(hour: 23, minute: 59))
        #expect(ClassStarts(secondsOfDay: []) == nil)
    }
}

extension ClassStartTests {
    @Test func aRestoredSessionCarriesItsSlotSoARestartAtTheSlotDoesNotStartItAgain() {
        var first = controller(seen: wall(18, 29, 59))
        _ = first.startOnSchedule(at: .s(1), wallTime: wall(18, 30, 0))
        _ = first.perform(.reset, at: .s(2))
        #expect(first.session.classSlot == slot, "kept through reset")
        _ = first.perform(.program("boxing"), at: .s(3))
        #expect(first.session.classSlot == slot, "and through a program change")
        // A restart within the grace, the state file's session restored.
        var second = Controller<T>(program: try! ProgramSpec.parse("countdown:1:00"))
        second.classStarts = ClassStarts(secondsOfDay: [18 * 3600 + 30 * 60])
        second.restore(first.session, at: .s(0))
        _ = second.startOnSchedule(at: .s(0), wallTime: wall(18, 29, 58))
        #expect(actions(second.startOnSchedule(at: .s(2), wallTime: wall(18, 30, 0))) == [])
    }
}
