import Foundation
import RoundClockCore
import Sound
import Testing
@testable import RoundClockConfig

/// `[sound]` and `[voice]`: defaults, every key's good values and each bad value's one line.
@Suite struct SoundSettingsTests {
    @Test func defaultsAreOffWithTheStandardCues() throws {
        let sound = try Config.parse("", file: "c.toml").sound
        #expect(!sound.enabled && sound.device == "default" && sound.volume == 80 && sound.mixer == nil && sound.rate == 48_000)
        #expect(sound.cues[.start] == SoundCue(.builtIn(.bell)))
        #expect(sound.cues[.end] == SoundCue(.builtIn(.bell), count: 3, spacing: .milliseconds(400)))
        #expect(sound.cues[.finish] == SoundCue(.builtIn(.horn)))
        #expect(sound.cues[.warning] == SoundCue(.builtIn(.beep), count: 3, spacing: .milliseconds(300)))
        #expect(sound.cues[.prepTick] == SoundCue(.builtIn(.tick)) && sound.cues[.tick] == SoundCue(.builtIn(.tick)))
        #expect(sound.cues[.halfway] == SoundCue(.builtIn(.beep), count: 2, spacing: .milliseconds(300)))
        #expect(sound.cues[.switch] == SoundCue(.builtIn(.horn), count: 2, spacing: .milliseconds(1_500)))
        #expect(sound.classStart == SoundCue(.builtIn(.horn)))
        #expect(sound.cues.count == Signal.allCases.count)
        let voice = try Config.parse("", file: "c.toml").voice
        #expect(!voice.enabled && voice.language == "en" && voice.voice == nil && voice.volume == 100)
    }

    @Test func everyKeyIsRead() throws {
        let config = try Config.parse("""
            [sound]
            enabled = true
            device = "plughw:CARD=Device,DEV=0"
            volume = 0
            mixer = "Line Out"
            rate = 192000
            [sound.start]
            sound = "horn"
            count = 2
            [sound.end]
            sound = "beep"
            [sound.warning]
            spacing_ms = 0
            [sound.prep_tick]
            sound = "none"
            [sound.class_start]
            sound = "bell"
            count = 10
            spacing_ms = 10000
            [voice]
            enabled = true
            language = "pt-br"
            voice = "en_US-lessac-medium"
            volume = 0
            """, file: "c.toml")
        let sound = config.sound
        #expect(sound.enabled && sound.device == "plughw:CARD=Device,DEV=0" && sound.volume == 0)
        #expect(sound.mixer == "Line Out" && sound.rate == 192_000)
        #expect(sound.cues[.start] == SoundCue(.builtIn(.horn), count: 2, spacing: .milliseconds(1_200)), "back to back")
        #expect(sound.cues[.end] == SoundCue(.builtIn(.beep), count: 3, spacing: .milliseconds(400)), "the default spacing")
        #expect(sound.cues[.warning] == SoundCue(.builtIn(.beep), count: 3, spacing: .zero))
        #expect(sound.cues[.prepTick] == nil, "none: silent")
        #expect(sound.cues[.tick] == SoundCue(.builtIn(.tick)), "left out: the default")
        #expect(sound.classStart == SoundCue(.builtIn(.bell), count: 10, spacing: .seconds(10)))
        #expect(config.voice.enabled && config.voice.language == "pt-br" && config.voice.voice == "en_US-lessac-medium")
        #expect(config.voice.volume == 0)
        #expect(try Config.parse("[sound.class_start]\nsound = \"none\"\n", file: "c.toml").sound.classStart == nil)
    }

    @Test func inlineTablesAreTheSameData() throws {
        let inline = try Config.parse("[sound]\nstart = { sound = \"beep\", count = 4, spacing_ms = 250 }\n", file: "c.toml")
        let tables = try Config.parse("[sound.start]\nsound = \"beep\"\ncount = 4\nspacing_ms = 250\n", file: "c.toml")
        #expect(inline == tables)
        #expect(inline.sound.cues[.start] == SoundCue(.builtIn(.beep), count: 4, spacing: .milliseconds(250)))
    }

    static let deviceHint = #"use 1 to 64 printable ASCII characters, e.g. "default", "hw:1,0" or "plughw:CARD=Device""#
    static let mixerHint = #"use 1 to 64 printable ASCII characters, e.g. "PCM" or "Master""#
    static let choices = #""bell", "horn", "beep", "tick", "none" or the path of a WAV file"#
    static let languageHint = #"use 2 or 3 lower-case letters and an optional region, e.g. "en", "en-us", "de" or "pt-br""#
    static let voiceHint = #"use 1 to 64 ASCII letters, digits, '-', '_', '.' or '+', e.g. "m3" or "en_US-lessac-medium""#
    static let long = String(repeating: "x", count: 65)

    static let bad: [(String, String)] = [
        ("[sound]\nenabled = 1", "sound.enabled: expected true or false, got 1"),
        ("[sound]\ndevice = \"\"", #"sound.device: "" is not a usable ALSA device name; "# + deviceHint),
        ("[sound]\ndevice = \" hw:1,0\"", #"sound.device: " hw:1,0" is not a usable ALSA device name; "# + deviceHint),
        ("[sound]\ndevice = \"hw:1,0é\"", #"sound.device: "hw:1,0é" is not a usable ALSA device name; "# + deviceHint),
        ("[sound]\ndevice = \"\(long)\"", "sound.device: \"\(long)\" is not a usable ALSA device name; " + deviceHint),
        ("[sound]\ndevice = \"a\\tb\"", #"sound.device: "a\tb" contains a control character; none is allowed here"#),
        ("[sound]\ndevice = 1", "sound.device: expected a string in quotes, got 1"),
        ("[sound]\nvolume = 101", "sound.volume: 101 is out of range; allowed are 0 to 100"),
        ("[sound]\nvolume = -1", "sound.volume: -1 is out of range; allowed are 0 to 100"),
        ("[sound]\nvolume = \"80\"", #"sound.volume: expected a whole number from 0 to 100, got "80""#),
        ("[sound]\nmixer = \"PCM \"", #"sound.mixer: "PCM " is not a usable mixer control name; "# + mixerHint),
        ("[sound]\nmixer = \"\"", #"sound.mixer: "" is not a usable mixer control name; "# + mixerHint),
        ("[sound]\nrate = 7999", "sound.rate: 7999 is out of range; allowed are 8000 to 192000"),
        ("[sound]\nrate = 192001", "sound.rate: 192001 is out of range; allowed are 8000 to 192000"),
        ("[sound]\nrate = 44100.0", "sound.rate: expected a whole number from 8000 to 192000, got 44100.0"),
        ("[sound]\ncolour = 1", "sound.colour: unknown key; known here: class_start, device, enabled, end, finish, halfway, "
            + "mixer, prep_tick, rate, start, switch, tick, volume, warning"),
        ("[sound]\nstart = \"bell\"", #"sound.start: expected a table [sound.start], got "bell""#),
        ("[sound.start]\nsound = \"\"", "sound.start.sound: empty; use " + choices),
        ("[sound.start]\nsound = 3", "sound.start.sound: expected a string in quotes, got 3"),
        ("[sound.end]\ncount = 0", "sound.end.count: 0 is out of range; allowed are 1 to 10"),
        ("[sound.end]\ncount = 11", "sound.end.count: 11 is out of range; allowed are 1 to 10"),
        ("[sound.switch]\nspacing_ms = 10001", "sound.switch.spacing_ms: 10001 is out of range; allowed are 0 to 10000"),
        ("[sound.switch]\nspacing_ms = -1", "sound.switch.spacing_ms: -1 is out of range; allowed are 0 to 10000"),
        ("[sound.prep_tick]\nvolume = 1", "sound.prep_tick.volume: unknown key; known here: count, sound, spacing_ms"),
        ("[sound.class_start]\ncount = true", "sound.class_start.count: expected a whole number from 1 to 10, got true"),
        ("[voice]\nenabled = \"yes\"", #"voice.enabled: expected true or false, got "yes""#),
        ("[voice]\nlanguage = \"EN\"", #"voice.language: "EN" is not a language tag; "# + languageHint),
        ("[voice]\nlanguage = \"en-\"", #"voice.language: "en-" is not a language tag; "# + languageHint),
        ("[voice]\nlanguage = \"english\"", #"voice.language: "english" is not a language tag; "# + languageHint),
        ("[voice]\nlanguage = \"en_US\"", #"voice.language: "en_US" is not a language tag; "# + languageHint),
        ("[voice]\nvoice = \"m 3\"", #"voice.voice: "m 3" is not a usable voice name; "# + voiceHint),
        ("[voice]\nvoice = \"\"", #"voice.voice: "" is not a usable voice name; "# + voiceHint),
        ("[voice]\nvolume = 101", "voice.volume: 101 is out of range; allowed are 0 to 100"),
        ("[voice]\nspeed = 1", "voice.speed: unknown key; known here: enabled, language, voice, volume"),
    ]

    /// Each bad value is on line 2, under its table's header.
    @Test(arguments: bad)
    func badValueIsOneExactLine(_ toml: String, _ message: String) {
        do {
            _ = try Config.parse(toml + "\n", file: "c.toml")
            Issue.record("accepted: \(toml)")
        } catch {
            #expect(error.description == "c.toml: line 2: " + message)
        }
    }

    @Test(arguments: ["default", "hw:1,0", "plughw:CARD=Device", "sysdefault:CARD=Headphones", "dmix", String(repeating: "d", count: 64)])
    func goodDeviceNames(_ name: String) throws {
        #expect(try Config.parse("[sound]\ndevice = \"\(name)\"\nmixer = \"\(name)\"\n", file: "c.toml").sound.device == name)
    }

    @Test(arguments: ["en", "de", "en-us", "pt-br", "yue", "es-419", "de-1996"])
    func goodLanguageTags(_ tag: String) throws {
        #expect(try Config.parse("[voice]\nlanguage = \"\(tag)\"\n", file: "c.toml").voice.language == tag)
    }
}
