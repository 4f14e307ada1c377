import Sound
import Testing

/// What a signal sounds like: a source, how many times, how far apart.
@Suite struct SoundCueTests {
    @Test(arguments: BuiltInSound.allCases)
    func aBuiltInSoundsDurationIsWhatItRenders(_ sound: BuiltInSound) {
        for rate in [8_000, 44_100, 48_000] {
            let seconds: Double = sound.duration / .seconds(1)
            let expected = Int((seconds * Double(rate)).rounded())
            let rendered = sound.render(rate: rate).frames
            #expect(abs(rendered - expected) <= 1, "\(sound) at \(rate) Hz")
        }
    }

    @Test func withoutASpacingTheSoundsPlayBackToBack() {
        #expect(SoundCue(.builtIn(.beep), count: 3).onsets == [.zero, .milliseconds(200), .milliseconds(400)])
        #expect(SoundCue(.builtIn(.bell), count: 3, spacing: .milliseconds(400)).onsets
                == [.zero, .milliseconds(400), .milliseconds(800)])
        let file = PCM(rate: 8_000, channels: 2, samples: [Int16](repeating: 100, count: 1_600))
        #expect(SoundCue(.file(path: "x.wav", pcm: file), count: 2).onsets == [.zero, .milliseconds(100)])
    }

    @Test func aSourceIsConvertedToTheRateAndChannelsAsked() {
        let file = PCM(rate: 16_000, channels: 2, samples: [100, 300, -100, -300, 50, 50])
        let source = SoundSource.file(path: "x.wav", pcm: file)
        #expect(source.pcm(rate: 16_000, channels: 2) == file)
        #expect(source.pcm(rate: 8_000, channels: 1) == file.converted(rate: 8_000, channels: 1))
        #expect(SoundSource.builtIn(.tick).pcm(rate: 8_000, channels: 2) == BuiltInSound.tick.render(rate: 8_000).converted(rate: 8_000, channels: 2))
        #expect(source.description == "x.wav" && SoundSource.builtIn(.horn).description == "horn")
    }
}
