import Testing
@testable import RoundClockCore

/// `Controller.view` and `viewAhead` (one snapshot per turn, no controller copy per
/// precomputed frame) answer exactly what the separate calls and an advanced copy do.
struct ControllerViewTests {
    let wall = WallTime(hour: 18, minute: 30)

    /// The view of a copy advanced to `at`, the way the loop precomputed it before.
    func advancedView(_ c: Controller<T>, at: T) -> (Face, Status) {
        var ahead = c
        _ = ahead.advance(to: at)
        return (ahead.face(at: at, wallTime: wall), ahead.status(at: at))
    }

    func check(_ c: Controller<T>, at: T, ahead: T, _ comment: Comment) {
        let view = c.view(at: at, wallTime: wall)
        #expect(view.face == c.face(at: at, wallTime: wall), comment)
        #expect(view.status == c.status(at: at), comment)
        #expect(view.nextDeadline == c.nextDeadline(after: at, wallTime: wall), comment)
        let due = c.viewAhead(at: ahead, wallTime: wall)
        let (face, status) = advancedView(c, at: ahead)
        #expect(due.face == face && due.status == status, comment)
    }

    @Test func everyTurnOfASessionWithPressesAndIdleClock() {
        var c = Controller<T>(program: Presets.tabata, hasModeButton: false, idleClockAfter: .seconds(30))
        check(c, at: .s(0), ahead: .s(0.5), "fresh: nothing processed yet")
        _ = c.advance(to: .s(1))
        check(c, at: .s(1), ahead: .s(40), "ready, the idle clock due before the deadline")
        _ = c.handle(ButtonEvent(.start, .press, at: .s(41)))
        for step in 0..<30 {
            let t = T.s(41 + Double(step) * 0.7)
            _ = c.advance(to: t)
            check(c, at: t, ahead: t.advanced(by: .milliseconds(700)), "running at \(t)")
        }
        _ = c.handle(ButtonEvent(.stop, .press, at: .s(70)))
        check(c, at: .s(70), ahead: .s(72.5), "STOP held: its long press (reset) falls before the deadline")
        _ = c.handle(ButtonEvent(.stop, .release, at: .s(73)))
        check(c, at: .s(73), ahead: .s(80), "released")
    }
}
