import Testing
@testable import RoundClockCore

/// The remote's PIN on the panels: in parts the time panel can show, for a bounded time, only
/// while the clock is idle, brought by the gateway or by holding STOP and pressing START,
/// gone at any press or command, and never starting a round.
@Suite struct PinDisplayTests {
    let wall = WallTime(sinceEpoch: .zero)

    func texts(_ face: Face) -> [String] { [face.phase.text, face.time.text, face.round.text] }

    @Test func aLongPINComesInPartsThenTheClockGoesBack() {
        var c = Controller<T>(program: Presets.boxing)
        let ready = c.face(at: .s(0), wallTime: wall)
        _ = c.showPIN("4829137755", for: .seconds(20), at: .s(1))
        let changes = faceChanges(&c, from: .s(1), until: .s(30), wall: wall)
        #expect(changes.map { texts($0.1) } == [
            ["PIN1", "4829", "    "], ["PIN2", "1377", "    "], ["PIN3", "55  ", "    "],
            ["PIN1", "4829", "    "], ["PIN2", "1377", "    "], texts(ready),
        ])
        #expect(changes.map(\.0) == [.s(1), .s(5), .s(9), .s(13), .s(17), .s(21)])
        #expect(changes.dropLast().allSatisfy { $0.1.secret } && !changes.last!.1.secret)
        #expect(PinDisplay<T>.parts(of: "482913", digits: 6) == ["482913"])
        var six = Controller<T>(program: Presets.boxing)
        six.panelWidths = PanelWidths(time: 6, round: 2)
        _ = six.showPIN("482913", for: .seconds(5), at: .s(0))
        #expect(texts(six.face(at: .s(1), wallTime: wall)) == ["PIN ", "482913", "  "])
    }

    @Test func neverDuringARound() {
        var c = Controller<T>(program: Presets.boxing)
        _ = c.perform(.start, at: .s(0))
        _ = c.showPIN("482913", for: .seconds(60), at: .s(1))
        #expect(!c.face(at: .s(2), wallTime: wall).secret)
        #expect(c.remotePIN == "482913", "remembered for the gesture")
        // Shown, then a class start or a press takes the panels back.
        var d = Controller<T>(program: Presets.boxing)
        _ = d.showPIN("482913", for: .seconds(60), at: .s(1))
        #expect(d.face(at: .s(2), wallTime: wall).secret)
        _ = d.perform(.start, at: .s(3))
        #expect(!d.face(at: .s(4), wallTime: wall).secret)
    }

    @Test func holdingStopAndPressingStartShowsItWithoutStarting() {
        var c = Controller<T>(program: Presets.boxing, hasModeButton: false)
        _ = c.handle(ButtonEvent(.start, .press, at: .s(0)))
        _ = c.handle(ButtonEvent(.start, .release, at: .s(0.1)))
        _ = c.perform(.reset, at: .s(0.2))
        #expect(c.session.state(at: .s(0.3)) == .ready)
        // No PIN known yet: the gesture is START, as always... after STOP's own press.
        _ = c.showPIN("482913", for: .zero, at: .s(1))
        #expect(!c.face(at: .s(1), wallTime: wall).secret, "seconds 0: remembered, not shown")
        _ = c.handle(ButtonEvent(.stop, .press, at: .s(2)))
        let out = c.handle(ButtonEvent(.start, .press, at: .s(2.5)))
        #expect(actions(out).isEmpty, "no start")
        #expect(c.face(at: .s(3), wallTime: wall).secret)
        _ = c.handle(ButtonEvent(.start, .release, at: .s(2.6)))
        // STOP held past the long press: a board without MODE would cycle programs; not now.
        let held = c.advance(to: .s(6))
        #expect(actions(held).isEmpty && c.program.name == "boxing")
        _ = c.handle(ButtonEvent(.stop, .release, at: .s(6.5)))
        #expect(c.face(at: .s(7), wallTime: wall).secret, "releases do not end it")
        #expect(!c.face(at: .s(2.5 + 40), wallTime: wall).secret, "gone after \(PinDisplay<T>.gestureTime)")
        // Any press ends it.
        _ = c.handle(ButtonEvent(.stop, .press, at: .s(50)))
        _ = c.handle(ButtonEvent(.start, .press, at: .s(50.5)))
        #expect(c.face(at: .s(51), wallTime: wall).secret)
        _ = c.handle(ButtonEvent(.mode, .press, at: .s(52)))
        #expect(!c.face(at: .s(52.5), wallTime: wall).secret)
    }

    @Test func withoutAPINTheGestureIsStart() {
        var c = Controller<T>(program: Presets.boxing)
        _ = c.handle(ButtonEvent(.stop, .press, at: .s(1)))
        #expect(actions(c.handle(ButtonEvent(.start, .press, at: .s(1.5)))) == [.start])
    }
}
