import Testing
@testable import Sound

/// The session's sound track in virtual time: each sound's first sample at round(t × rate).
@Suite struct SoundTrackTests {
    let click = PCM(rate: 48_000, channels: 1, samples: [10_000, 5_000])

    @Test func aSoundStartsAtTheRoundedFrameOfItsInstant() {
        var track = SoundTrack(rate: 48_000, channels: 1)
        // 1.5 s exactly; 2 s + 10.4 µs (0.4992 frame: down); 3 s + 10.5 µs (0.504 frame: up).
        track.place(click, atNanoseconds: 1_500_000_000)
        track.place(click, atNanoseconds: 2_000_010_400)
        track.place(click, atNanoseconds: 3_000_010_500)
        let starts = track.samples.indices.filter { track.samples[$0] == 10_000 }
        #expect(starts == [72_000, 96_000, 144_001])
    }

    @Test func overlappingSoundsAddAndClip() {
        var track = SoundTrack(rate: 48_000, channels: 1)
        track.place(click, atNanoseconds: 0)
        track.place(click, atNanoseconds: 0)
        track.place(PCM(rate: 48_000, channels: 1, samples: [30_000]), atNanoseconds: 0)
        #expect(track.samples == [32_767, 10_000])
    }

    @Test func aSoundIsConvertedToTheTracksRateAndChannels() {
        var track = SoundTrack(rate: 48_000, channels: 2)
        track.place(PCM(rate: 24_000, channels: 1, samples: [0, 1_000]), atNanoseconds: 0)
        #expect(track.samples == [0, 0, 500, 500, 1_000, 1_000, 1_000, 1_000])
    }

    @Test func aSoundBeforeTheStartKeepsItsLaterPartAndTheTrackLastsTheSession() {
        var track = SoundTrack(rate: 1_000, channels: 1)
        track.place(PCM(rate: 1_000, channels: 1, samples: [1, 2, 3, 4]), atNanoseconds: -2_000_000)
        #expect(track.samples == [3, 4])
        track.extend(toNanoseconds: 2_830_000_000_000)
        #expect(track.frames == 2_830_000)
    }

    @Test func stereoToMonoAverages() {
        let pcm = PCM(rate: 8_000, channels: 2, samples: [100, 300, -100, -301]).converted(rate: 8_000, channels: 1)
        #expect(pcm.samples == [200, -201])
    }
}
