import Testing
@testable import Sound

/// A pause (an announcement without a bell) after the bell was queued on the device: what the
/// device plays, frame by frame, as the speaker's thread feeds it.
@Suite struct RetractionTests {
    /// A 1 kHz stream whose frame 0 plays at t = 100 s, on a 100-frame device buffer that
    /// gives back queued frames all but two 5-frame periods ahead of the device.
    struct Device {
        var plan = PlaybackPlan()
        var mixer = StreamMixer(rate: 1_000, channels: 1, retained: 100)
        /// Every frame queued so far, the ones taken back overwritten: what the device plays.
        var frames: [Int16] = []
        let clock = StreamClock(frame: 0, nanoseconds: 100_000_000_000, rate: 1_000)

        /// The speaker's turns every 5 ms, from `from` up to `to` (milliseconds): the device
        /// has played one frame a millisecond; each turn fills its buffer.
        mutating func run(from: Int, to: Int) {
            for played in stride(from: from, to: to, by: 5) {
                var queued = frames
                let free = 100 - (queued.count - played)
                let placement = plan.place(into: &mixer, clock: clock, before: mixer.written + Int64(free)) { wanted in
                    let back = max(0, min(wanted, queued.count - played - 10))
                    queued.removeLast(back)
                    return back
                }
                frames = queued + mixer.render(frames: free + placement.tookBack)
            }
        }

        func sound(_ id: Int, at milliseconds: Int64) -> ScheduledSound {
            ScheduledSound(id: id, nanoseconds: clock.nanoseconds + milliseconds * 1_000_000,
                           pcm: PCM(rate: 1_000, channels: 1, samples: [7, 8, 9]))
        }

        /// The frames the bell's samples start on.
        var onsets: [Int] { frames.indices.filter { frames[$0] == 7 } }
    }

    @Test func aBellPausedAfterItWasQueuedIsNotHeard() {
        var device = Device()
        device.plan.announce([device.sound(1, at: 150)])
        device.run(from: 0, to: 80)
        #expect(device.onsets == [150], "queued on the device")
        device.plan.announce([]) // paused
        device.run(from: 80, to: 300)
        #expect(device.onsets.isEmpty)
        #expect(device.frames.count > 300 && device.frames.allSatisfy { $0 == 0 })
        #expect(device.mixer.isSilent)
    }

    @Test func aBellTheDeviceIsAboutToPlayStays() {
        var device = Device()
        device.plan.announce([device.sound(1, at: 150)])
        device.run(from: 0, to: 145)
        device.plan.announce([]) // paused less than two periods before it
        device.run(from: 145, to: 300)
        #expect(device.onsets == [150])
        #expect(Array(device.frames[150..<153]) == [7, 8, 9])
    }

    @Test func aBellPausedAndResumedPlaysOnceAtItsNewInstant() {
        var device = Device()
        device.plan.announce([device.sound(1, at: 150)])
        device.run(from: 0, to: 80)
        device.plan.announce([]) // paused 70 ms before it, resumed 50 ms later
        device.run(from: 80, to: 130)
        device.plan.announce([device.sound(1, at: 200)])
        device.run(from: 130, to: 400)
        #expect(device.onsets == [200])
    }

    @Test func aBellRetractedAndAnnouncedAgainUnchangedPlaysOnItsFrame() {
        var device = Device()
        device.plan.announce([device.sound(1, at: 150)])
        device.run(from: 0, to: 80)
        device.plan.announce([])
        device.run(from: 80, to: 90)
        device.plan.announce([device.sound(1, at: 150)])
        device.run(from: 90, to: 300)
        #expect(device.onsets == [150])
    }

    /// A signal struck twice fires: the next announcement no longer holds its strikes, and
    /// the loop reports them, the second one still ahead.
    @Test(arguments: [false, true])
    func strikesReportedAsTheAnnouncementMovesOnPlayOnTheirFrames(reportATurnLater: Bool) {
        var device = Device()
        let strikes = [device.sound(1, at: 150), device.sound(2, at: 180)], next = device.sound(3, at: 300)
        device.plan.announce(strikes + [next])
        device.run(from: 0, to: 150)
        device.plan.announce([next])
        if reportATurnLater { device.run(from: 150, to: 155) }
        device.plan.report(strikes)
        device.run(from: reportATurnLater ? 155 : 150, to: 400)
        #expect(device.onsets == [150, 180, 300])
    }
}
