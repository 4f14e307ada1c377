import Testing
@testable import RoundClockCore

@Suite struct SessionTests {
    /// Independent oracle: the time text a boxing clock shows at whole second `t`.
    static func boxingText(at t: Int) -> (text: String, phase: String, round: Int) {
        var start = 0
        let plan: [(String, Int, Int)] = [("prep", 10, 0)] + (1...12).flatMap { r in
            r < 12 ? [("work", 180, r), ("rest", 60, r)] : [("work", 180, r)]
        }
        for (kind, length, round) in plan {
            if t < start + length {
                let remaining = start + length - t
                let m = remaining / 60, s = remaining % 60
                return ((m >= 10 ? "\(m)" : " \(m)") + ":" + (s < 10 ? "0\(s)" : "\(s)"), kind, round)
            }
            start += length
        }
        return (" 0:00", "work", 12)
    }

    @Test func fullBoxingSessionIsExactToTheMillisecond() {
        var c = Controller<T>(program: Presets.boxing)
        _ = c.perform(.start, at: .s(0))
        let changes = faceChanges(&c, from: .s(0), until: .s(3000))
        let timeChanges = changes.filter { _ in true }.reduce(into: [(T, String)]()) { acc, change in
            if acc.last?.1 != change.1.time.text { acc.append((change.0, change.1.time.text)) }
        }
        #expect(timeChanges.count == 2831, "one change per second from 0 to 2830 inclusive")
        for (i, (instant, text)) in timeChanges.enumerated() {
            #expect(instant == T(.seconds(i)), "change \(i) at \(instant)")
            #expect(text == Self.boxingText(at: i).text, "at \(i) s")
        }
        let last = changes.last!
        #expect(last.0 == T(.seconds(2830)), "0 ms drift at the end of round 12")
        #expect(last.1.phase.text == "DONE")
        #expect(last.2 == [.finish])
        #expect(c.session.state(at: .s(2830)) == .finished)
        #expect(c.session.state(at: .s(2829.999)) == .running)
        // Round and phase panels follow the oracle at every second.
        for t in 0..<2830 {
            let face = c.face(at: T(.seconds(t)), wallTime: WallTime(sinceEpoch: .zero))
            let expected = Self.boxingText(at: t)
            #expect(face.phase.text == expected.phase.uppercased())
            #expect(face.round.text == FaceBuilder.roundText(round: expected.round, of: 12))
        }
    }

    @Test func pauseAtFractionalInstantsShiftsBoundariesByExactlyThePause() {
        var plain = Controller<T>(program: Presets.tabata)
        _ = plain.perform(.start, at: .s(0))
        let reference = faceChanges(&plain, from: .s(0), until: .s(300)).map(\.0)

        var paused = Controller<T>(program: Presets.tabata)
        _ = paused.perform(.start, at: .s(0))
        _ = paused.perform(.pause, at: .s(12.345))
        #expect(paused.session.state(at: .s(15)) == .paused)
        #expect(paused.face(at: .s(15), wallTime: WallTime(sinceEpoch: .zero)).time == PanelText(" 0:18", blinking: true))
        #expect(paused.nextDeadline(after: .s(15), wallTime: WallTime(sinceEpoch: .zero)) == nil, "frozen: nothing to wake for")
        _ = paused.perform(.resume, at: .s(20.001))
        let shifted = faceChanges(&paused, from: .s(20.001), until: .s(300)).map(\.0)
        let pause = Duration.s(20.001 - 12.345)
        let expectedAfter = reference.filter { $0 > .s(12.345) }.map { $0.advanced(by: pause) }
        // The first entry after resuming is the resume instant itself (the blink stops).
        #expect(Array(shifted.dropFirst()) == expectedAfter)
        #expect(paused.session.state(at: T.s(240).advanced(by: pause)) == .finished)
        #expect(paused.session.state(at: T.s(240).advanced(by: pause - .nanoseconds(1))) == .running)
    }

    @Test func stateMachine() {
        var s = Session<T>(program: Presets.tabata)
        #expect(s.state(at: .s(0)) == .ready)
        do { let changed = s.pause(at: .s(0)); #expect(!changed) }
        do { let changed = s.start(at: .s(1)); #expect(changed) }
        do { let changed = s.start(at: .s(2)); #expect(!changed, "start while running does nothing") }
        #expect(s.state(at: .s(5)) == .running)
        do { let changed = s.pause(at: .s(5)); #expect(changed) }
        #expect(s.elapsedBefore == .s(4) && s.anchor == nil)
        #expect(s.state(at: .s(100)) == .paused)
        do { let changed = s.resume(at: .s(100)); #expect(changed) }
        #expect(s.snapshot(at: .s(100))?.elapsed == .s(4))
        #expect(s.state(at: .s(336)) == .finished)
        do { let changed = s.start(at: .s(400)); #expect(changed, "start restarts a finished session") }
        #expect(s.elapsed(at: .s(400)) == .zero && s.state(at: .s(400)) == .running)
        do { let changed = s.reset(); #expect(changed) }
        #expect(s.state(at: .s(500)) == .ready)
    }

    @Test func skipPhase() {
        var s = Session<T>(program: Presets.boxing)
        s.start(at: .s(0))
        do { let changed = s.skipPhase(at: .s(3)); #expect(changed) }
        #expect(s.snapshot(at: .s(3))?.phase.kind == .work)
        #expect(s.snapshot(at: .s(3))?.remainingInPhase == .s(180))
        #expect(s.snapshot(at: .s(4))?.remainingInPhase == .s(179))
        var last = Session<T>(program: Presets.tabata, elapsedBefore: .s(235))
        do { let changed = last.skipPhase(at: .s(0)); #expect(changed) }
        #expect(last.state(at: .s(0)) == .finished)
        var open = Session<T>(program: Presets.stopwatch)
        open.start(at: .s(0))
        do { let changed = open.skipPhase(at: .s(5)); #expect(!changed, "an open-ended phase cannot be skipped") }
    }

    @Test func farFutureAndBeforeAnchor() throws {
        var s = Session<T>(program: Presets.boxing)
        s.start(at: .s(100))
        let tenYears = T(.seconds(10 * 365 * 86_400))
        let snap = try #require(s.snapshot(at: tenYears))
        #expect(snap.state == .finished && snap.elapsed == .seconds(2830) && snap.remainingInPhase == .zero)
        #expect(s.elapsed(at: .s(50)) == .zero, "an instant before the anchor counts as the anchor")
        var w = Session<T>(program: Presets.stopwatch)
        w.start(at: .s(0))
        #expect(w.snapshot(at: tenYears)?.elapsedInPhase == .seconds(10 * 365 * 86_400))
    }

    @Test func phaseLookupIsABinarySearch() throws {
        let p = try Program.rounds(name: "long", label: "L", prep: .s(10), rounds: 99, work: .s(1), rest: .s(2))
        for (i, start) in p.starts.enumerated() {
            #expect(p.phaseIndex(atElapsed: start) == i)
            if i > 0 { #expect(p.phaseIndex(atElapsed: start - .nanoseconds(1)) == i - 1) }
        }
        #expect(p.phaseIndex(atElapsed: .seconds(1_000_000)) == p.phases.count - 1)
    }
}
