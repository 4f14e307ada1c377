import ControlProtocol
import Panels
import Platform
import RoundClockCore
import Testing
@testable import RoundClockService

/// The render loop shares its session with the control socket (docs/control-protocol.md), at
/// exact virtual instants: an adopt shows the true second at once and is echoed verbatim with
/// its token; a later STOP shares a new session computed once, `adopted` null.
@Suite struct SessionShareLoopTests {
    @Test func anAdoptedSessionIsShownAtOnceEchoedVerbatimAndALaterStopClearsTheToken() async throws {
        let recorder = Recorder()
        let rig = try SharingLoop(until: .seconds(6), members: [recorder])
        let (clock, start, hub, clocks, inbox, loop) = (rig.clock, rig.start, rig.hub, rig.clocks, rig.inbox, rig.loop)
        let countdown = try ProgramSpec.parse("countdown:1:00")
        // Another clock started it 20.5 s before this one's start (CLOCK_REALTIME 979.5 s).
        let share = SessionShare(program: "countdown:1:00", run: .running, elapsedBeforeNanoseconds: 0, anchorRealtimeNanoseconds: 979_500_000_000)
        let adopter = SessionAdopter<VirtualClock.Instant>(
            clocks: clocks, resolve: { _ in .success(countdown) },
            syncState: { ClockSyncState(timesyncFlag: true, kernelSynchronized: true, maxError: .microseconds(250)) }, post: inbox.post)
        #expect(adopter.adopt(token: 5, share: share) == nil)
        clock.at(start.advanced(by: .seconds(3))) { inbox.post(.stop, at: start.advanced(by: .seconds(3))) }
        _ = hub.subscribe()
        let final = await loop.run(Controller<VirtualClock.Instant>(program: try ProgramSpec.parse("boxing")))

        // The true second at once (a 1:00 countdown 20.5 s in shows 0:40), then each second on the dot.
        let times = recorder.frames.compactMap { frame in frame.panels.first { $0.role == .time }.map { (frame.t, $0.text) } }
        #expect(times.first?.0 == .zero && times.first?.1 == " 0:40", "\(times)")
        #expect(times.dropFirst().first.map { $0.0 == .milliseconds(500) && $0.1 == " 0:39" } == true, "\(times)")
        #expect(final.session.state(at: clock.now) == .paused && final.session.elapsedBefore == .milliseconds(23_500))

        let (states, adoptsApplied) = hub.take()
        #expect(adoptsApplied == 1)
        var echoed = share
        echoed.adopted = 5
        let sessions = states.compactMap(\.session)
        #expect(sessions.count == states.count && sessions.first == echoed)
        let whileRunning = states.filter { $0.state == "running" }
        #expect(whileRunning.count >= 3 && whileRunning.allSatisfy { $0.session == echoed }, "repeated verbatim")
        #expect(sessions.last == SessionShare(program: "countdown:1:00", run: .paused, elapsedBeforeNanoseconds: 23_500_000_000))
        #expect(recorder.occurrences.contains { if case .action(.adopt(let note)) = $0.1 { note.hasPrefix("token 5: countdown:1:00 running") } else { false } })
    }
}

/// A render loop in virtual time that shares its session with a control hub, as `run
/// --control` wires it; CLOCK_REALTIME is 1,000 s at its start.
struct SharingLoop {
    let clock = VirtualClock()
    let start: VirtualClock.Instant
    let hub: ControlHub
    let clocks: SessionClocks<VirtualClock.Instant>
    let inbox = ButtonInbox<VirtualClock.Instant>()
    let loop: RenderLoop<VirtualTimeWaiter>

    init(until end: Duration, members: [any DisplayObserver] = []) throws {
        let start = clock.now
        let hub = try ControlHub()
        let control = ControlStateObserver(hub: hub)
        let clocks = SessionClocks<VirtualClock.Instant>.advancing(with: clock, from: start, realtimeAtStart: .seconds(1_000))
        self.start = start
        self.hub = hub
        self.clocks = clocks
        loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: start, inbox: inbox, display: emulatedBoard(),
                          observer: Observers(members: members + [control], events: [SessionSharing(state: control, clocks: clocks)]),
                          wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .at(start.advanced(by: end)), endWhenIdle: true)
    }
}
