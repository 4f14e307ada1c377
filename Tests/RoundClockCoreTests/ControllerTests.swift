import Testing
@testable import RoundClockCore

@Suite struct ControllerTests {
    let wall = WallTime(hour: 18, minute: 30)

    func press(_ c: inout Controller<T>, _ b: Button, at t: Double, hold: Double = 0.1) -> [Occurrence<T>] {
        var out = c.handle(ButtonEvent(b, .press, at: .s(t)))
        out += c.handle(ButtonEvent(b, .release, at: .s(t + hold)))
        return out
    }

    @Test func startActsOnPressDown() {
        var c = Controller<T>(program: Presets.tabata)
        let out = c.handle(ButtonEvent(.start, .press, at: .s(1)))
        #expect(actions(out) == [.start])
        #expect(c.session.state(at: .s(1)) == .running)
        #expect(c.session.anchor == .s(1), "anchored at the press, not the release")
        #expect(actions(press(&c, .start, at: 2)) == [], "START while running does nothing")
    }

    @Test func stopPausesThenResets() {
        var c = Controller<T>(program: Presets.tabata)
        _ = press(&c, .start, at: 0)
        #expect(actions(press(&c, .stop, at: 5)) == [.pause])
        #expect(actions(press(&c, .start, at: 8)) == [.resume])
        #expect(actions(press(&c, .stop, at: 9)) == [.pause])
        #expect(actions(press(&c, .stop, at: 10)) == [.reset])
        #expect(c.session.state(at: .s(10)) == .ready)
    }

    @Test func startRestartsAFinishedSession() {
        var c = Controller<T>(program: try! ProgramSpec.parse("countdown:0:05"))
        _ = press(&c, .start, at: 0)
        _ = c.advance(to: .s(10))
        #expect(actions(press(&c, .start, at: 10)) == [.restart])
        #expect(c.session.elapsed(at: .s(12)) == .s(2))
    }

    @Test func longStopResetsFromAnyStateOnce() {
        var c = Controller<T>(program: Presets.boxing)
        _ = press(&c, .start, at: 0)
        var out = c.handle(ButtonEvent(.stop, .press, at: .s(30)))
        #expect(actions(out) == [.pause])
        #expect(c.nextDeadline(after: .s(30), wallTime: wall) == .s(32), "wakes for the long press")
        out = c.advance(to: .s(3630)) // held for an hour
        #expect(actions(out) == [.reset], "one long press per hold")
        #expect(c.session.state(at: .s(3630)) == .ready)
        #expect(c.nextDeadline(after: .s(3630), wallTime: wall) == nil)
        _ = c.handle(ButtonEvent(.stop, .release, at: .s(3630)))
        #expect(c.program.name == "boxing", "held from running: reset only, no program change")
    }

    @Test func modeCyclesWhileReadyOnly() {
        var c = Controller<T>(program: Presets.boxing)
        #expect(actions(press(&c, .mode, at: 0)) == [.program("mma")])
        #expect(c.face(at: .s(0), wallTime: wall).phase.text == "MMA ")
        _ = press(&c, .start, at: 1)
        #expect(actions(press(&c, .mode, at: 2)) == [], "MODE never interrupts a running round")
        var d = Controller<T>(program: .wallClock)
        #expect(actions(press(&d, .mode, at: 0)) == [.program("boxing")], "wraps around")
    }

    @Test func longStopWhileReadyCyclesOnBoardsWithoutMode() {
        var c = Controller<T>(program: Presets.boxing, hasModeButton: false)
        #expect(actions(press(&c, .stop, at: 0, hold: 2.5)) == [.program("mma")])
        var m = Controller<T>(program: Presets.boxing, hasModeButton: true)
        #expect(actions(press(&m, .stop, at: 0, hold: 2.5)) == [])
        // STOP pressed while paused resets at once; holding on must not also cycle.
        var p = Controller<T>(program: Presets.boxing, hasModeButton: false)
        _ = press(&p, .start, at: 0)
        _ = press(&p, .stop, at: 1)
        #expect(actions(press(&p, .stop, at: 2, hold: 3)) == [.reset])
        #expect(p.program.name == "boxing")
    }

    @Test func repeatedPressEdgesAreIgnored() {
        var c = Controller<T>(program: Presets.tabata)
        _ = c.handle(ButtonEvent(.start, .press, at: .s(0)))
        _ = c.handle(ButtonEvent(.stop, .press, at: .s(1)))
        #expect(actions(c.handle(ButtonEvent(.stop, .press, at: .s(1.01)))) == [], "no release in between")
    }

    @Test func signalsFireOnceInOrderAcrossPauses() {
        var c = Controller<T>(program: Presets.boxing)
        _ = c.perform(.start, at: .s(0))
        var fired: [(Signal, T)] = []
        func collect(_ o: [Occurrence<T>]) { for x in o { if case .signal(let s, let at) = x { fired.append((s, at)) } } }
        collect(c.advance(to: .s(8.5)))
        collect(c.perform(.pause, at: .s(9)))
        collect(c.advance(to: .s(50)))
        collect(c.perform(.resume, at: .s(50)))
        collect(c.advance(to: .s(51)))
        #expect(fired.map(\.0) == [.prepTick, .prepTick, .prepTick, .start])
        #expect(fired.map(\.1) == [.s(7), .s(8), .s(9), .s(51)])
    }

    @Test func idleClockAfterMinutesReadyUntilTheNextPress() {
        var c = Controller<T>(program: Presets.boxing, idleClockAfter: .seconds(600))
        _ = c.advance(to: .s(0))
        let wall = { (t: Double) in WallTime(hour: 18, minute: 0).advanced(by: .s(t)) }
        #expect(c.face(at: .s(599), wallTime: wall(599)).phase.text == "BOX ")
        #expect(c.nextDeadline(after: .s(0), wallTime: wall(0)) == .s(600), "wakes exactly when idle begins")
        #expect(c.face(at: .s(600), wallTime: wall(600)).time.text == "18:10", "the wall clock after 10 minutes ready")
        _ = c.handle(ButtonEvent(.mode, .press, at: .s(700)))
        #expect(c.program.name == "mma")
        #expect(c.face(at: .s(700), wallTime: wall(700)).phase.text == "MMA ", "a press brings the program back")
        _ = c.handle(ButtonEvent(.mode, .release, at: .s(700.1)))
        _ = c.handle(ButtonEvent(.start, .press, at: .s(800)))
        #expect(c.face(at: .s(2000), wallTime: wall(2000)).phase.text != "TIME", "never while a session runs")
    }

    @Test func brightnessFollowsTheDayNightScheduleOnTheMinute() {
        let schedule = BrightnessSchedule(day: 15, night: 3, nightFrom: 21 * 60, dayFrom: 7 * 60)
        var c = Controller<T>(program: Presets.boxing, brightness: schedule)
        _ = c.advance(to: .s(0))
        let evening = WallTime(hour: 20, minute: 59, second: 30)
        #expect(c.face(at: .s(0), wallTime: evening).brightness == 15)
        #expect(c.nextDeadline(after: .s(0), wallTime: evening) == .s(30), "wakes at 21:00 exactly")
        #expect(c.face(at: .s(30), wallTime: evening.advanced(by: .s(30))).brightness == 3)
        #expect(schedule.nextSwitch(after: WallTime(hour: 21, minute: 0)) == WallTime(hour: 7, minute: 0, day: 1))
        #expect(BrightnessSchedule(day: 9, night: 9, nightFrom: 0, dayFrom: 60).nextSwitch(after: evening) == nil)
    }

    @Test func actionsDescribeThemselves() {
        #expect([Action.start, .resume, .restart, .pause, .reset, .skip, .program("mma")].map(\.description)
                == ["start", "resume", "restart", "pause", "reset", "skip", "program mma"])
    }

    @Test func clockMode() {
        var c = Controller<T>(program: .wallClock)
        let face = c.face(at: .s(0), wallTime: WallTime(hour: 7, minute: 5, second: 0))
        #expect(face.time.text == "07:05" && face.phase.text == "TIME")
        #expect(c.nextDeadline(after: .s(0), wallTime: WallTime(hour: 7, minute: 5)) == .s(0.5))
        c.cadence = .minutes
        #expect(c.nextDeadline(after: .s(0), wallTime: WallTime(hour: 7, minute: 5, second: 20)) == .s(40))
        #expect(c.status(at: .s(0)).state == .clock)
    }
}
