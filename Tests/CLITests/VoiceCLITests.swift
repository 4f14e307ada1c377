import Foundation
import Sound
import Testing
import Voice

/// `[voice]` in `simulate --virtual --sound-file` and `check-config`.
extension SoundFileCLITests {
    /// A tabata with silent starts: at round 2's start only the voice sounds. espeak-ng's
    /// samples vary by a few from call to call, so the track is checked by where the voice's
    /// sound begins and how long it lasts against a render of the same phrase here.
    @Test func tabataSaysRoundTwoOnRoundTwosStartFrame() async throws {
        let rate = 16_000
        let dir = temporaryFile("voice-config")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let quiet = dir + "/quiet.toml", spoken = dir + "/spoken.toml"
        try "[sound.start]\nsound = \"none\"\n".write(toFile: quiet, atomically: true, encoding: .utf8)
        try "[sound.start]\nsound = \"none\"\n[voice]\nenabled = true\n".write(toFile: spoken, atomically: true, encoding: .utf8)
        let (silent, _) = try await simulate(["--program", "tabata", "--config", quiet], rate: rate)
        let (track, signals) = try await simulate(["--program", "tabata", "--config", spoken], rate: rate)
        let roundTwo = try #require(signals.filter { $0.name == "start" }.dropFirst().first)
        #expect(roundTwo.ms == 40_000)
        let at = frame(roundTwo.ms, rate)
        let expected = try Voice(language: "en").speak("round two").converted(rate: rate, channels: 1)
        #expect(expected.samples.first != 0, "espeak-ng's first sample is sound")
        #expect(silent.samples[(at - rate / 2)..<(at + rate)].allSatisfy { $0 == 0 }, "no other sound near round 2's start")
        #expect(track.samples[(at - rate / 2)..<at].allSatisfy { $0 == 0 }, "silence before the voice")
        #expect(track.samples[at] != 0, "the voice starts on frame \(at)")
        let end = (at..<track.frames).first { frame in track.samples[frame..<min(frame + rate / 10, track.frames)].allSatisfy { $0 == 0 } }
        let length = try #require(end) - at
        #expect(abs(length - expected.frames) < expected.frames / 10, "\(length) frames spoken, \(expected.frames) rendered")
    }

    @Test func checkConfigStartsTheVoiceAndNamesAnUnknownLanguage() async throws {
        let dir = temporaryFile("voice-check")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let good = dir + "/good.toml", bad = dir + "/bad.toml"
        try "[voice]\nenabled = true\nlanguage = \"de\"\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "[voice]\nenabled = true\nlanguage = \"qq\"\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let ok = try await CLIRun.run(["check-config", good, "--state-dir", dir])
        #expect(ok.status == 0, "\(ok.stderr)")
        let run = try await CLIRun.run(["check-config", bad, "--state-dir", dir])
        #expect(run.status == 78)
        #expect(run.stderr == "roundclock: \(bad): voice.language: espeak-ng has no voice for language \"qq\" (espeak-ng --voices lists them)\n")
    }
}
