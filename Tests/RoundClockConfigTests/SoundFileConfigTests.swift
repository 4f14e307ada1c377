import Foundation
import RoundClockCore
import Sound
import Testing
import TestSupport
@testable import RoundClockConfig

/// User WAV files in `[sound]`: read and checked at config load, relative to the config
/// file's directory, refused in one line naming the file.
@Suite struct SoundFileConfigTests {
    /// A scratch directory with a config file path in it.
    final class Scratch {
        let directory: String
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("roundclock-sound-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory + "/sounds", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
        var config: String { directory + "/config.toml" }
        func write(_ bytes: [UInt8], _ name: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name)) }
        func parse(_ toml: String) throws(ConfigError) -> Config { try Config.parse(toml, file: config) }
    }

    static let mono = PCM(rate: 44_100, channels: 1, samples: (0..<4_410).map { Int16(truncatingIfNeeded: $0 * 7) })
    static let stereo = PCM(rate: 22_050, channels: 2, samples: (0..<2_000).map { Int16(truncatingIfNeeded: $0 * 13 - 9_000) })

    /// `WAV.encode`'s bytes with 8-bit samples declared.
    static func eightBit() -> [UInt8] {
        var bytes = WAV.encode(PCM(rate: 8_000, channels: 1, samples: [1, 2, 3, 4]))
        bytes[34] = 8
        return bytes
    }

    @Test func monoAndStereoFilesAreReadAndResolvedAgainstTheConfigsDirectory() throws {
        let scratch = try Scratch()
        try scratch.write(WAV.encode(Self.mono), "sounds/gong.wav")
        try scratch.write(WAV.encode(Self.stereo), "stereo.wav")
        let config = try scratch.parse("""
            [sound.start]
            sound = "sounds/gong.wav"
            [sound.end]
            sound = "\(scratch.directory)/stereo.wav"
            count = 2
            [sound.class_start]
            sound = "sounds/gong.wav"
            """)
        let gong = SoundSource.file(path: scratch.directory + "/sounds/gong.wav", pcm: Self.mono)
        #expect(config.sound.cues[.start] == SoundCue(gong), "relative to the config file's directory")
        #expect(config.sound.classStart == SoundCue(gong))
        let stereo = SoundSource.file(path: scratch.directory + "/stereo.wav", pcm: Self.stereo)
        #expect(config.sound.cues[.end] == SoundCue(stereo, count: 2, spacing: .milliseconds(400)))
        #expect(SoundCue(gong).spacing == .milliseconds(100), "one sound's length: 4410 frames at 44.1 kHz")
        #expect(gong.pcm(rate: 44_100, channels: 1) == Self.mono)
        #expect(stereo.pcm(rate: 8_000, channels: 1) == Self.stereo.converted(rate: 8_000, channels: 1))
        #expect(config.summary(board: try BoardFile.simulator()).contains(
            "sound: off, device default, volume 80%, 48000 Hz; files: start \(scratch.directory)/sounds/gong.wav, "
                + "end \(scratch.directory)/stereo.wav, class_start \(scratch.directory)/sounds/gong.wav"))
    }

    @Test func withoutReadingSoundFilesTheirPathsAreKeptAndTheFilesLeftAlone() throws {
        let scratch = try Scratch()
        try Data("[remote]\nlisten = \"127.0.0.1:8080\"\n[sound.start]\nsound = \"sounds/private.wav\"\n".utf8)
            .write(to: URL(fileURLWithPath: scratch.config))
        // The file is missing (to the gateway, as good as unreadable): the clock refuses it.
        #expect(throws: ConfigError.self) { try Config.load(scratch.config) }
        let config = try Config.load(scratch.config, readingSoundFiles: false)
        #expect(config.sound.cues[.start]?.source.description == scratch.directory + "/sounds/private.wav")
        #expect(config.remote.listen.description == "127.0.0.1:8080")
        // What is not a file is still checked.
        try Data("[sound.start]\nsound = \"\"\n".utf8).write(to: URL(fileURLWithPath: scratch.config))
        #expect(throws: ConfigError.self) { try Config.load(scratch.config, readingSoundFiles: false) }
    }

    /// The refusal of `sound = "<value>"` in `[sound.start]`, after `sound.start.sound: `.
    func refusal(_ scratch: Scratch, _ value: String) -> String {
        do {
            _ = try scratch.parse("[sound.start]\nsound = \"\(value)\"\n")
            return "accepted"
        } catch {
            #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "one line")
            let prefix = scratch.config + ": line 2: sound.start.sound: "
            #expect(error.description.hasPrefix(prefix))
            return String(error.description.dropFirst(prefix.count))
        }
    }

    @Test func badFilesAreRefusedInOneLineNamingTheFile() throws {
        let scratch = try Scratch()
        let d = scratch.directory
        try scratch.write(Self.eightBit(), "eight.wav")
        try scratch.write(Array(WAV.encode(Self.mono).prefix(1_000)), "truncated.wav")
        try scratch.write(Array("not a sound".utf8), "text.wav")
        let choices = #""bell", "horn", "beep", "tick", "none" or the path of a WAV file"#
        #expect(refusal(scratch, "eight.wav") == #"WAV file "\#(d)/eight.wav": 8-bit samples; use 16-bit PCM"#)
        #expect(refusal(scratch, "truncated.wav")
                == #"WAV file "\#(d)/truncated.wav": its "data" chunk runs past the end of the file (8820 bytes, 956 left)"#)
        #expect(refusal(scratch, "text.wav") == #"WAV file "\#(d)/text.wav": not a WAV file (no RIFF/WAVE header); use 16-bit PCM WAV"#)
        #expect(refusal(scratch, "missing.wav")
                == #"WAV file "\#(d)/missing.wav": cannot open: No such file or directory (errno 2); a sound is "# + choices)
        #expect(refusal(scratch, "bel") == #"WAV file "\#(d)/bel": cannot open: No such file or directory (errno 2); a sound is "# + choices)
        #expect(refusal(scratch, "sounds") == #"WAV file "\#(d)/sounds": is a directory, not a regular file"#)
    }

    @Test func aFIFOIsRefusedNotWaitedOn() throws {
        let scratch = try Scratch()
        #expect(mkfifo(scratch.directory + "/fifo.wav", 0o600) == 0)
        #expect(refusal(scratch, "fifo.wav") == #"WAV file "\#(scratch.directory)/fifo.wav": is a FIFO (named pipe), not a regular file"#)
    }

    @Test func aFileOverTheLimitIsRefusedUnread() throws {
        let scratch = try Scratch()
        let path = scratch.directory + "/huge.wav"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, off_t(WAV.maximumBytes + 1)) == 0)
        #expect(refusal(scratch, "huge.wav") == #"WAV file "\#(path)": larger than 32 MiB; use a shorter sound"#)
    }

    // MARK: A generated corpus of [sound] tables: a config or one line, never a crash.

    /// A value for a key, and whether the reader must accept it.
    typealias Choice = (text: String, valid: Bool)

    static let topChoices: [String: [Choice]] = [
        "enabled": [("true", true), ("false", true), ("1", false), ("\"true\"", false)],
        "device": [("\"default\"", true), ("\"hw:1,0\"", true), ("\"\"", false), ("\" x\"", false), ("\"a\\u0007\"", false),
                   ("\"é\"", false), ("\"\(String(repeating: "d", count: 65))\"", false), ("7", false)],
        "volume": [("0", true), ("100", true), ("80", true), ("101", false), ("-1", false), ("1e2", false), ("\"80\"", false)],
        "mixer": [("\"PCM\"", true), ("\"Line Out\"", true), ("\"\"", false), ("[]", false)],
        "rate": [("8000", true), ("192000", true), ("44100", true), ("7999", false), ("192001", false), ("9223372036854775807", false)],
        "colour": [("1", false)],
    ]

    static let cueChoices: [String: [Choice]] = [
        "sound": [("\"bell\"", true), ("\"horn\"", true), ("\"none\"", true), ("\"tick\"", true), ("\"ok.wav\"", true),
                  ("\"eight.wav\"", false), ("\"missing.wav\"", false), ("\"\"", false), ("\"Bell\"", false), ("3", false)],
        "count": [("1", true), ("10", true), ("0", false), ("11", false), ("\"2\"", false)],
        "spacing_ms": [("0", true), ("10000", true), ("400", true), ("10001", false), ("-5", false), ("true", false)],
        "loud": [("1", false)],
    ]

    static let cueTables = Signal.allCases.map(SoundSettings.key) + [SoundSettings.classStartKey]

    /// Some keys of `choices`, each at most once, in a random order.
    static func entries(_ choices: [String: [Choice]], _ random: inout SplitMix64) -> [(key: String, choice: Choice)] {
        choices.keys.sorted().filter { _ in random.chance(40) }.map { key in (key, random.pick(choices[key]!)) }
    }

    @Test func generatedSoundTablesGiveAConfigOrOneLine() throws {
        let scratch = try Scratch()
        try scratch.write(WAV.encode(Self.mono), "ok.wav")
        try scratch.write(Self.eightBit(), "eight.wav")
        let seed = UInt64.random(in: 0...UInt64.max)
        print("SoundFileConfigTests [sound] corpus seed: \(seed)")
        var random = SplitMix64(seed: seed)
        for _ in 0..<1_500 {
            var valid = true
            var lines = ["[sound]"]
            var headers: [String] = []
            for (key, choice) in Self.entries(Self.topChoices, &random) {
                lines.append("\(key) = \(choice.text)")
                valid = valid && choice.valid
            }
            for table in Self.cueTables where random.chance(30) {
                let entries = Self.entries(Self.cueChoices, &random)
                valid = entries.allSatisfy(\.choice.valid) && valid
                let pairs = entries.map { "\($0.key) = \($0.choice.text)" }
                if random.chance(50) {
                    lines.append("\(table) = { " + pairs.joined(separator: ", ") + " }")
                } else {
                    // The same data as a [sound.<table>] header, after every key of [sound].
                    headers += ["[sound.\(table)]"] + pairs
                }
            }
            lines += headers
            let toml = lines.joined(separator: "\n") + "\n"
            do {
                _ = try scratch.parse(toml)
                #expect(valid, "seed \(seed): accepted\n\(toml)")
            } catch {
                #expect(!valid, "seed \(seed): \(error.description)\n\(toml)")
                #expect(error.description.hasPrefix(scratch.config + ": "), "seed \(seed): names the file")
                #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "seed \(seed): one line")
            }
        }
    }
}
