// Compiled out where swift-property-based is not in the package graph: Swift 6.0 builds
// (Package.swift, docs/install.md).
#if canImport(PropertyBased)
import PropertyBased
import Testing
@testable import RoundClockCore

/// Random programs and random command sequences at random instants.
@Suite struct PropertyTests {
    static func program(rounds: Int, workMs: Int, restMs: Int, prepMs: Int, up: Bool) -> Program {
        let phases = Program.roundPlan(
            prep: prepMs > 0 ? .milliseconds(prepMs) : nil, rounds: rounds, work: .milliseconds(workMs),
            rest: restMs > 0 ? .milliseconds(restMs) : nil, counting: up ? .up : .down)
        return Program(trusted: "random", label: "RND", phases: phases, warning: nil)
    }

    /// Seconds shown on the time panel (`mm:ss` only; the generated phases stay under 100 min).
    static func shownSeconds(_ text: String) -> Int64 {
        let digits = text.filter(\.isNumber).compactMap { Int64(String($0)) }
        let value = digits.reduce(0) { $0 * 10 + $1 }
        return value / 100 * 60 + value % 100
    }

    @Test func replayMatchesAnIndependentModel() async {
        await propertyCheck(count: 300, input: Gen.int(in: 1...6), Gen.int(in: 1...90_000), Gen.int(in: 0...30_000),
                            Gen.int(in: 0...15_000), Gen.int(in: 0...4).array(of: 0...16), Gen.int(in: 0...40_000).array(of: 16)) {
            rounds, workMs, restMs, prepMs, kinds, gaps in
            let p = Self.program(rounds: rounds, workMs: workMs, restMs: restMs, prepMs: prepMs, up: workMs % 2 == 0)
            let total = p.total!
            var session = Session<T>(program: p)
            // Model: running intervals summed directly, clamped to the total.
            var modelElapsed = Duration.zero
            var runningSince: T?
            func model(at now: T) -> Duration {
                min(total, modelElapsed + (runningSince.map { max(.zero, $0.duration(to: now)) } ?? .zero))
            }
            var now = T.s(0)
            for (i, kind) in kinds.enumerated() {
                now = now.advanced(by: .milliseconds(gaps[i]))
                let before = model(at: now)
                switch kind {
                case 0: // start: from ready/finished restarts, from paused resumes
                    if session.start(at: now) {
                        if before >= total || (runningSince == nil && before == .zero) { modelElapsed = .zero }
                        else { modelElapsed = before }
                        runningSince = now
                    }
                case 1:
                    if session.pause(at: now) { modelElapsed = before; runningSince = nil }
                case 2:
                    if session.resume(at: now) { modelElapsed = before; runningSince = now }
                case 3:
                    if session.reset() { modelElapsed = .zero; runningSince = nil }
                default:
                    if session.skipPhase(at: now) {
                        let index = p.phaseIndex(atElapsed: before)
                        modelElapsed = index + 1 < p.phases.count ? p.starts[index + 1] : total
                        if runningSince != nil { runningSince = now }
                    }
                }
                #expect(session.elapsed(at: now) == model(at: now))
                let later = now.advanced(by: .milliseconds(gaps[(i + 7) % gaps.count]))
                #expect(session.elapsed(at: later) == model(at: later), "snapshot consistent with replaying the commands")
            }
        }
    }

    @Test func runningDisplayNeverExceedsThePhaseNorGoesBackwardsAndFinishesExactly() async {
        await propertyCheck(count: 120, input: Gen.int(in: 1...5), Gen.int(in: 1...40_000), Gen.int(in: 0...20_000),
                            Gen.int(in: 0...12_000), Gen.int(in: 0...5_000)) { rounds, workMs, restMs, prepMs, startMs in
            let p = Self.program(rounds: rounds, workMs: workMs, restMs: restMs, prepMs: prepMs, up: workMs % 3 == 0)
            var c = Controller<T>(program: p)
            let start = T(.milliseconds(startMs))
            _ = c.perform(.start, at: start)
            let finish = start.advanced(by: p.total!)
            let changes = faceChanges(&c, from: start, until: finish.advanced(by: .seconds(5)))
            #expect(changes.last?.0 == finish, "the last change is the exact finish instant")
            #expect(c.session.state(at: finish) == .finished)
            #expect(c.session.state(at: finish.advanced(by: .nanoseconds(-1))) == .running)
            var previous: (phase: Int, elapsed: Duration)?
            for (instant, face, _) in changes where instant < finish {
                let snap = c.session.snapshot(at: instant)!
                let shown = Self.shownSeconds(face.time.text)
                let lengthCeil = snap.phase.length!.ceilSeconds
                #expect(shown <= lengthCeil, "never shows more than the phase length")
                if let previous {
                    #expect((snap.phaseIndex, snap.elapsed) > (previous.phase, previous.elapsed), "never goes backwards")
                }
                previous = (snap.phaseIndex, snap.elapsed)
                // Each change instant is one: just before it the face was different.
                let justBefore = instant.advanced(by: .nanoseconds(-1))
                if instant > start {
                    #expect(c.face(at: justBefore, wallTime: WallTime(sinceEpoch: .zero)) != face)
                }
            }
        }
    }

    @Test func underRandomCommandsTheDisplayNeverExceedsThePhaseNorRunsBackwardsAndFinishesExactly() async {
        await propertyCheck(count: 200, input: Gen.int(in: 1...5), Gen.int(in: 1...60_000), Gen.int(in: 0...20_000),
                            Gen.int(in: 0...12_000), Gen.int(in: 0...4).array(of: 1...12), Gen.int(in: 1...30_000).array(of: 12)) {
            rounds, workMs, restMs, prepMs, kinds, gaps in
            let p = Self.program(rounds: rounds, workMs: workMs, restMs: restMs, prepMs: prepMs, up: workMs % 2 == 0)
            var session = Session<T>(program: p)
            var now = T.s(0)
            _ = session.start(at: now)
            for (i, kind) in kinds.enumerated() {
                // Between two commands: sample the display at increasing instants.
                let next = now.advanced(by: .milliseconds(gaps[i]))
                var previous: Snapshot?
                // Six distinct, strictly increasing instants (a gap under 6 ms would otherwise
                // sample one instant twice, where "running never goes backwards" cannot hold).
                for k in 0..<6 {
                    let at = now.advanced(by: .microseconds(gaps[i] * 1_000 * k / 6))
                    guard let snap = session.snapshot(at: at) else { continue }
                    let face = FaceBuilder.face(program: p, snapshot: snap).face
                    if snap.state != .finished {
                        #expect(Self.shownSeconds(face.time.text) <= snap.phase.length!.ceilSeconds, "never more than the phase length")
                    }
                    if let previous {
                        switch snap.state {
                        case .running:
                            #expect((snap.phaseIndex, snap.elapsed) > (previous.phaseIndex, previous.elapsed), "running never goes backwards")
                        case .paused, .ready:
                            #expect(snap == previous, "stopped: the picture stands still")
                        case .finished:
                            #expect(snap.elapsed == p.total!, "finished shows the end")
                        }
                    }
                    previous = snap
                }
                now = next
                switch kind {
                case 0: _ = session.start(at: now)
                case 1: _ = session.pause(at: now)
                case 2: _ = session.resume(at: now)
                case 3: _ = session.reset()
                default: _ = session.skipPhase(at: now)
                }
            }
            // Whatever happened, a running session finishes at the exact computed instant.
            if session.state(at: now) == .running, let finish = session.instant(atElapsed: p.total!) {
                #expect(session.state(at: finish) == .finished)
                #expect(session.state(at: finish.advanced(by: .nanoseconds(-1))) == .running)
            }
        }
    }

    @Test func nextChangeIsTheFirstChangeForAnyInstant() async {
        await propertyCheck(count: 300, input: Gen.int(in: 1...400_000), Gen.int(in: 0...600_000)) { workMs, probeMs in
            let p = Self.program(rounds: 2, workMs: workMs, restMs: 3_000, prepMs: 0, up: probeMs % 2 == 0)
            var c = Controller<T>(program: p)
            _ = c.perform(.start, at: .s(0))
            let now = T(.milliseconds(probeMs))
            let wall = WallTime(sinceEpoch: .zero)
            guard let next = c.nextFaceChange(after: now, wallTime: wall) else {
                #expect(c.session.state(at: now) == .finished)
                return
            }
            #expect(next > now)
            let face = c.face(at: now, wallTime: wall)
            #expect(c.face(at: next.advanced(by: .nanoseconds(-1)), wallTime: wall) == face, "no change before it")
            #expect(c.face(at: next, wallTime: wall) != face, "a change at it")
        }
    }
}
#endif
