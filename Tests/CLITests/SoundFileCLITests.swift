import Foundation
import Sound
import Testing

/// `simulate --virtual --sound-file`: the whole session's sound track, each signal's sound
/// starting at the frame round(t × rate) of the frames file's `t`, sample for sample.
@Suite(.serialized) struct SoundFileCLITests {
    /// A directory with a config whose `[sound.start]` is `x.wav` (a ramp, mono at `rate`)
    /// and whose `[sound.finish]` is `s.wav` (stereo at 16 kHz); returns the config's path.
    func soundConfig(_ dir: String, rate: Int) throws -> (config: String, start: PCM, finish: PCM) {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let ramp: [Int16] = (0..<1_000).map { Int16($0 * 20 - 10_000) }
        let start = PCM(rate: rate, channels: 1, samples: ramp)
        let finish = PCM(rate: 16_000, channels: 2, samples: ramp + ramp)
        try Data(WAV.encode(start)).write(to: URL(fileURLWithPath: dir + "/x.wav"))
        try Data(WAV.encode(finish)).write(to: URL(fileURLWithPath: dir + "/s.wav"))
        let config = dir + "/config.toml"
        let text = "[sound.start]\nsound = \"x.wav\"\n[sound.finish]\nsound = \"s.wav\"\n"
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        return (config, start, finish)
    }

    /// `--config`: the configured sounds, a user's WAV on the start bell's frame, a stereo
    /// 16 kHz one converted to the track's rate and mixed to mono on the finish's.
    @Test func aConfiguredWAVFileSoundsOnItsSignalsFrame() async throws {
        let rate = 8_000
        let dir = temporaryFile("sound-config")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (config, start, finish) = try soundConfig(dir, rate: rate)
        let (track, signals) = try await simulate(["--program", "countdown:0:05", "--config", config], rate: rate)
        #expect(signals.map(\.name) == ["start", "finish"])
        let startSamples: [Int16] = start.samples
        #expect(Array(track.samples[0..<startSamples.count]) == startSamples, "x.wav's samples from frame 0")
        #expect(track.samples[startSamples.count..<40_000].allSatisfy { $0 == 0 }, "no bell")
        let converted: [Int16] = finish.converted(rate: rate, channels: 1).samples
        let end = 40_000 + converted.count
        #expect(Array(track.samples[40_000..<end]) == converted, "s.wav at 8 kHz mono from the finish's frame")
        #expect(track.samples[end...].allSatisfy { $0 == 0 } && track.frames == 48_000, "silence to the end of the run")
    }

    @Test func configOptionNeedsTheSoundFileAndAGoodConfig() async throws {
        let dir = temporaryFile("sound-config-bad")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let config = dir + "/config.toml"
        try "[sound]\nvolume = 101\n".write(toFile: config, atomically: true, encoding: .utf8)
        let alone = try await CLIRun.run(["simulate", "--virtual", "--no-tty", "--program", "countdown:0:05", "--config", config])
        #expect(alone.status == 64 && alone.stderr.contains("--config needs --sound-file"), "\(alone.stderr)")
        let bad = try await CLIRun.run(["simulate", "--virtual", "--no-tty", "--program", "countdown:0:05", "--config", config,
                                        "--sound-file", dir + "/out.wav"])
        #expect(bad.status == 78, "\(bad.stderr)")
        #expect(bad.stderr == "roundclock: \(config): line 2: sound.volume: 101 is out of range; allowed are 0 to 100\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }

    /// Runs the simulation; returns the track and the frames file's signals as (t in ms, name).
    func simulate(_ arguments: [String], rate: Int) async throws -> (track: PCM, signals: [(ms: Int, name: String)]) {
        let frames = temporaryFile("sound.jsonl"), wav = temporaryFile("sound.wav")
        defer {
            try? FileManager.default.removeItem(atPath: frames)
            try? FileManager.default.removeItem(atPath: wav)
        }
        let run = try await CLIRun.run(["simulate", "--virtual", "--no-tty", "--frames", frames, "--sound-file", wav,
                                        "--sound-rate", String(rate)] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: wav)))
        // A canonical 44-byte header for 16-bit mono at `rate`: as an empty one, but the sizes.
        let empty: [UInt8] = WAV.encode(PCM(rate: rate, channels: 1, samples: []))
        let header: [UInt8] = Array(bytes[0..<44])
        #expect(header[0..<4] == empty[0..<4] && header[8..<40] == empty[8..<40], "16-bit mono at \(rate) Hz")
        let dataBytes = Int(header[40]) | Int(header[41]) << 8 | Int(header[42]) << 16 | Int(header[43]) << 24
        #expect(dataBytes == bytes.count - 44)
        let signals = try jsonLines(frames).compactMap { line -> (ms: Int, name: String)? in
            guard let name = line.object["signal"] as? String, let t = line.object["t"] as? Double else { return nil }
            return (Int((t * 1_000).rounded()), name)
        }
        return (try WAV.parse(bytes, limit: .max), signals)
    }

    /// The frame of `ms` milliseconds: round(t × rate), in integers.
    func frame(_ ms: Int, _ rate: Int) -> Int { (ms * rate + 500) / 1_000 }

    @Test func aBoxingSessionsBellsStartExactlyOnTheirFrames() async throws {
        let rate = 8_000
        let (track, signals) = try await simulate(["--program", "boxing"], rate: rate)
        #expect(track.rate == rate && track.channels == 1)
        // 47:10 of session, the 1 s after it, and the finish horn's last 0.2 s beyond that.
        let finish = try #require(signals.last { $0.name == "finish" })
        #expect(finish.ms == 2_830_000)
        let horn = BuiltInSound.horn.render(rate: rate).samples
        #expect(track.frames == max(frame(2_831_000, rate), frame(finish.ms, rate) + horn.count))
        #expect(Array(track.samples[frame(finish.ms, rate)...]) == horn)
        let bell = BuiltInSound.bell.render(rate: rate).samples
        let strike = frame(400, rate)
        let starts = signals.filter { $0.name == "start" }, ends = signals.filter { $0.name == "end" }
        #expect(starts.count == 12 && ends.count == 11)
        for signal in starts {
            let at = frame(signal.ms, rate)
            #expect(track.samples[at - 1] == 0, "silence before the bell at \(signal.ms) ms")
            #expect(Array(track.samples[at..<(at + bell.count)]) == bell, "the bell at \(signal.ms) ms starts on frame \(at)")
        }
        for signal in ends {
            let at = frame(signal.ms, rate)
            #expect(track.samples[at - 1] == 0)
            #expect(Array(track.samples[at..<(at + strike)]) == Array(bell[0..<strike]), "the first strike at \(signal.ms) ms")
            let second = Array(track.samples[(at + strike)..<(at + 2 * strike)])
            let expected = (0..<strike).map { Int16(clamping: Int(bell[strike + $0]) + Int(bell[$0])) }
            #expect(second == expected, "the second strike 400 ms later, ringing over the first")
        }
    }

    @Test func aShortCountdownAt48kHzStartsWithTheBellAndEndsWithTheHorn() async throws {
        let rate = 48_000
        let (track, signals) = try await simulate(["--program", "countdown:0:05"], rate: rate)
        #expect(signals.map(\.name) == ["start", "finish"] && signals.map(\.ms) == [0, 5_000])
        let bell = BuiltInSound.bell.render(rate: rate).samples, horn = BuiltInSound.horn.render(rate: rate).samples
        #expect(Array(track.samples[0..<bell.count]) == bell)
        #expect(track.samples[bell.count..<240_000].allSatisfy { $0 == 0 })
        #expect(Array(track.samples[240_000..<(240_000 + horn.count)]) == horn)
        #expect(track.frames == 240_000 + horn.count, "the track lasts until the horn has sounded")
    }

    @Test(arguments: [(["--sound-file", "x.wav"], "--sound-file needs --virtual"),
                      (["--virtual", "--sound-file", "x.wav", "--sound-rate", "4000"], "--sound-rate must be 8000 to 192000 Hz, not 4000")])
    func badSoundOptionsAreOneLineUsageErrors(_ arguments: [String], _ message: String) async throws {
        let run = try await CLIRun.run(["simulate", "--no-tty", "--program", "countdown:0:05"] + arguments)
        #expect(run.status == 64 && run.stderr.contains(message), "\(run.stderr)")
    }
}
