import Testing
@testable import Sound

/// A live stream's timing and mixing: where a sound due at an instant lands in the stream.
@Suite struct StreamClockTests {
    @Test func theFrameOfAnInstantFollowsThePositionReport() {
        // 4,800 frames written, 1,920 of them still queued at t = 10 s: frame 2,880 plays then.
        let clock = StreamClock(written: 4_800, queued: 1_920, at: 10_000_000_000, rate: 48_000)
        #expect(clock.frame == 2_880)
        #expect(clock.frame(atNanoseconds: 10_000_000_000) == 2_880)
        #expect(clock.frame(atNanoseconds: 10_500_000_000) == 2_880 + 24_000)
        #expect(clock.frame(atNanoseconds: 9_990_000_000) == 2_880 - 480)
        // 10.4 µs is 0.4992 frame (down), 10.5 µs 0.504 (up), on either side.
        #expect(clock.frame(atNanoseconds: 10_000_010_400) == 2_880)
        #expect(clock.frame(atNanoseconds: 10_000_010_500) == 2_881)
        #expect(clock.frame(atNanoseconds: 9_999_989_500) == 2_879)
        #expect(clock.nanoseconds(ofFrame: 2_880 + 48_000 * 3) == 13_000_000_000)
    }

    @Test func instantsHoursApartDoNotOverflow() {
        // CLOCK_MONOTONIC after 200 days of uptime, a sound 6 hours later, at 192 kHz.
        let boot: Int64 = 200 * 86_400 * 1_000_000_000
        let clock = StreamClock(frame: 0, nanoseconds: boot, rate: 192_000)
        #expect(clock.frame(atNanoseconds: boot + 6 * 3_600 * 1_000_000_000) == 6 * 3_600 * 192_000)
    }
}

@Suite struct StreamMixerTests {
    let click = PCM(rate: 48_000, channels: 1, samples: [1_000, 2_000, 3_000])

    @Test func aSoundStartsOnItsFrameAcrossBlocks() {
        var mixer = StreamMixer(rate: 48_000, channels: 1)
        #expect(mixer.place(click, atFrame: 4) == 4)
        #expect(mixer.render(frames: 5) == [0, 0, 0, 0, 1_000])
        #expect(!mixer.isSilent)
        #expect(mixer.render(frames: 3) == [2_000, 3_000, 0])
        #expect(mixer.isSilent && mixer.written == 8)
    }

    @Test func aSoundForAFrameAlreadyWrittenStartsAtTheNextBlock() {
        var mixer = StreamMixer(rate: 48_000, channels: 1)
        _ = mixer.render(frames: 10)
        #expect(mixer.place(click, atFrame: 7) == 10)
        #expect(mixer.render(frames: 4) == [1_000, 2_000, 3_000, 0])
    }

    @Test func aRewindRendersTheTakenBackFramesAgainWithTheNewSound() {
        var mixer = StreamMixer(rate: 48_000, channels: 1, retained: 4)
        mixer.place(PCM(rate: 48_000, channels: 1, samples: [5, 5, 5]), atFrame: 0)
        #expect(mixer.render(frames: 6) == [5, 5, 5, 0, 0, 0])
        // Frames 2 to 5 taken back (4 retained): the ended sound's tail is mixed again.
        mixer.rewind(frames: 10)
        #expect(mixer.written == 2)
        #expect(mixer.place(click, atFrame: 1) == 2)
        #expect(mixer.render(frames: 4) == [1_005, 2_000, 3_000, 0])
        #expect(mixer.isSilent)
    }

    @Test func aRemovedSoundIsRenderedAgainAsSilenceAfterARewind() {
        var mixer = StreamMixer(rate: 48_000, channels: 1, retained: 10)
        let key = ScheduledSound.Key(id: 1, nanoseconds: 0)
        mixer.place(click, atFrame: 4, key: key)
        #expect(mixer.render(frames: 6) == [0, 0, 0, 0, 1_000, 2_000])
        #expect(mixer.remove([key]).isEmpty, "its first frames are rendered: it stays")
        #expect(mixer.renderedStart(of: [key]) == 4)
        mixer.rewind(frames: 2)
        #expect(mixer.remove([key]) == [key])
        #expect(mixer.render(frames: 5) == [0, 0, 0, 0, 0])
        #expect(mixer.isSilent)
    }

    @Test func soundEndFollowsARemoval() {
        var mixer = StreamMixer(rate: 48_000, channels: 1)
        let early = ScheduledSound.Key(id: 1, nanoseconds: 0), late = ScheduledSound.Key(id: 2, nanoseconds: 0)
        mixer.place(click, atFrame: 2, key: early)
        mixer.place(click, atFrame: 6)
        mixer.place(click, atFrame: 10, key: late)
        #expect(mixer.soundEnd == 13)
        #expect(mixer.remove([late, ScheduledSound.Key(id: 3, nanoseconds: 0)]) == [late])
        #expect(mixer.soundEnd == 9, "the unnamed sound's end")
        #expect(mixer.remove([early]) == [early])
        #expect(mixer.soundEnd == 9)
        #expect(mixer.render(frames: 12) == [0, 0, 0, 0, 0, 0, 1_000, 2_000, 3_000, 0, 0, 0])
        #expect(mixer.isSilent)
        var alone = StreamMixer(rate: 48_000, channels: 1)
        alone.place(click, atFrame: 2, key: early)
        #expect(alone.remove([early]) == [early])
        #expect(alone.soundEnd == 0 && alone.isSilent)
    }

    @Test func volumeScalesAndOverlapsClip() {
        var mixer = StreamMixer(rate: 48_000, channels: 2, volume: 50)
        mixer.place(PCM(rate: 48_000, channels: 1, samples: [30_000, -30_000]), atFrame: 0)
        mixer.place(PCM(rate: 48_000, channels: 1, samples: [30_000, -30_000]), atFrame: 0)
        // 60,000 halved; stereo from mono.
        #expect(mixer.render(frames: 2) == [30_000, 30_000, -30_000, -30_000])
        var loud = StreamMixer(rate: 48_000, channels: 1)
        loud.place(PCM(rate: 48_000, channels: 1, samples: [30_000]), atFrame: 0)
        loud.place(PCM(rate: 48_000, channels: 1, samples: [30_000]), atFrame: 0)
        #expect(loud.render(frames: 1) == [32_767])
    }
}

@Suite struct PlaybackPlanTests {
    let bell = PCM(rate: 1_000, channels: 1, samples: [7, 8, 9])
    /// A 1 kHz stream whose frame 0 plays at t = 100 s.
    let clock = StreamClock(frame: 0, nanoseconds: 100_000_000_000, rate: 1_000)

    /// A device that takes nothing back.
    let noRewind: (Int) -> Int = { _ in 0 }

    func at(_ milliseconds: Int64) -> Int64 { 100_000_000_000 + milliseconds * 1_000_000 }

    @Test func aSoundAnnouncedAheadIsPlacedOnItsFrameOnce() {
        var plan = PlaybackPlan()
        var mixer = StreamMixer(rate: 1_000, channels: 1)
        plan.announce([ScheduledSound(id: 1, nanoseconds: at(25), pcm: bell)])
        #expect(plan.place(into: &mixer, clock: clock, before: 20, rewind: noRewind).late.isEmpty, "not in this block yet")
        _ = mixer.render(frames: 20)
        #expect(plan.place(into: &mixer, clock: clock, before: 40, rewind: noRewind).late == [0], "on time")
        // The loop reports it when it is due, and announces it again: played once.
        plan.report([ScheduledSound(id: 1, nanoseconds: at(25), pcm: bell)])
        plan.announce([ScheduledSound(id: 1, nanoseconds: at(25), pcm: bell)])
        #expect(plan.place(into: &mixer, clock: clock, before: 40, rewind: noRewind).late.isEmpty)
        #expect(Array(mixer.render(frames: 20)[4...7]) == [0, 7, 8, 9])
    }

    @Test func aNewAnnouncementTakesBackWhatItNoLongerHolds() {
        var plan = PlaybackPlan()
        var mixer = StreamMixer(rate: 1_000, channels: 1)
        plan.announce([ScheduledSound(id: 1, nanoseconds: at(25), pcm: bell)])
        plan.announce([]) // paused
        #expect(plan.nextNanoseconds == nil)
        #expect(plan.place(into: &mixer, clock: clock, before: 40, rewind: noRewind).late.isEmpty)
    }

    @Test func onlySoundsPlacedFromAnAnnouncementAndNotDueAreRetracted() {
        var plan = PlaybackPlan()
        var mixer = StreamMixer(rate: 1_000, channels: 1)
        let a = ScheduledSound(id: 1, nanoseconds: at(25), pcm: bell)
        let b = ScheduledSound(id: 2, nanoseconds: at(500), pcm: bell)
        let c = ScheduledSound(id: 3, nanoseconds: at(30), pcm: bell)
        plan.announce([a, b, c])
        #expect(plan.place(into: &mixer, clock: clock, before: 40, rewind: noRewind).late == [0, 0])
        plan.announce([b, c])
        #expect(plan.retracted == [a.key], "b is not placed, c still announced")
        plan.announce([a, b, c])
        #expect(plan.retracted.isEmpty, "announced again before it was taken out")
        plan.report([c])
        plan.announce([])
        #expect(plan.retracted == [a.key], "c is due: it stays")
        #expect(plan.place(into: &mixer, clock: clock, before: 40, rewind: noRewind).late.isEmpty)
        #expect(plan.retracted.isEmpty)
        #expect(Array(mixer.render(frames: 40)[24...]) == [0, 0, 0, 0, 0, 0, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func aReportedSoundPlaysAtOnceAndAStaleOneNever() {
        var plan = PlaybackPlan()
        var mixer = StreamMixer(rate: 1_000, channels: 1)
        _ = mixer.render(frames: 3_000)
        // Due 30 ms ago: starts on the next block, 30 frames late; due 2 s ago: dropped.
        plan.report([ScheduledSound(id: 1, nanoseconds: at(2_970), pcm: bell),
                     ScheduledSound(id: 2, nanoseconds: at(1_000), pcm: bell)])
        #expect(plan.place(into: &mixer, clock: clock, before: 3_010, rewind: noRewind).late == [30])
        #expect(Array(mixer.render(frames: 3)) == [7, 8, 9])
        #expect(plan.nextNanoseconds == nil)
    }
}

@Suite struct OnsetDetectorTests {
    @Test func anOnsetIsTheFirstLoudFrameAfterSilence() {
        var detector = OnsetDetector(threshold: 1_000, quietFrames: 4)
        // Loud at 2 (after the silent start), quiet 3 frames only (no onset at 7), quiet 4
        // frames then loud at 14, found across the block boundary.
        let first: [Int16] = [0, 0, 1_500, -2_000, 0, 0, 0, 1_200, 0, 0, 0]
        let second: [Int16] = [0, 0, 0, -1_000, 10]
        #expect(detector.onsets(in: first, channels: 1) == [2])
        #expect(detector.onsets(in: second, channels: 1) == [14])
    }

    @Test func everyBuiltInSoundIsHeardOnItsFirstMillisecond() {
        for sound in BuiltInSound.allCases {
            var track = SoundTrack(rate: 48_000, channels: 1)
            track.place(sound.render(rate: 48_000), atNanoseconds: 250_000_000)
            var detector = OnsetDetector(threshold: 300, quietFrames: 2_400)
            let onsets = detector.onsets(in: track.samples, channels: 1)
            #expect(onsets.first.map { $0 >= 12_000 && $0 < 12_048 } == true, "\(sound): \(onsets.prefix(3))")
        }
    }
}
