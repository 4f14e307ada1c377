import RoundClockCore
import Sound
import TOML

/// `[sound]`: the clock's sounds through a speaker (ALSA), and what each signal sounds like.
/// Off unless `enabled = true`: a clock plays through a speaker only when its owner says so.
/// The cues also make the sound track of `simulate --virtual --sound-file`, enabled or not.
public struct SoundSettings: Sendable, Hashable {
    /// `enabled`: play through the speaker; default false.
    public var enabled = false
    /// `device`: the ALSA PCM to play on (`default`, `hw:1,0`, `plughw:CARD=Device`).
    public var device = "default"
    /// `volume`: 0–100 percent, default 80.
    public var volume = 80
    /// `mixer`: the ALSA simple mixer control the volume is set on (`PCM`, `Master`); `nil`
    /// = the samples are scaled instead.
    public var mixer: String?
    /// `rate`: frames per second the sounds are played at, 8000–192000, default 48000.
    public var rate = 48_000
    /// `[sound.<signal>]`: what each signal sounds like; a signal without a cue is silent
    /// (`sound = "none"`).
    public var cues: [Signal: SoundCue] = SoundSettings.defaultCues
    /// `[sound.class_start]`: the sound when a class starts by itself on its `start_at`
    /// schedule; `nil` = silent.
    public var classStart: SoundCue? = SoundSettings.defaultClassStart

    public init() {}

    public static let volumes = 0...100
    public static let rates = WAV.rates
    public static let counts = 1...10
    public static let spacingsMs = 0...10_000
    public static let maximumNameLength = 64

    /// A bell to start a round, the ding-ding-ding to end it, three beeps for the warning,
    /// ticks for the last seconds, two beeps at halfway, the horn to switch and to finish.
    public static let defaultCues: [Signal: SoundCue] = Dictionary(uniqueKeysWithValues: Signal.allCases.map { ($0, defaultCue($0)) })

    /// A horn when a class starts by itself.
    public static let defaultClassStart = SoundCue(.builtIn(.horn))

    /// The default cue of `signal`.
    public static func defaultCue(_ signal: Signal) -> SoundCue {
        switch signal {
        case .start: SoundCue(.builtIn(.bell))
        case .end: SoundCue(.builtIn(.bell), count: 3, spacing: .milliseconds(400))
        case .finish: SoundCue(.builtIn(.horn))
        case .warning: SoundCue(.builtIn(.beep), count: 3, spacing: .milliseconds(300))
        case .prepTick: SoundCue(.builtIn(.tick))
        case .tick: SoundCue(.builtIn(.tick))
        case .halfway: SoundCue(.builtIn(.beep), count: 2, spacing: .milliseconds(300))
        case .switch: SoundCue(.builtIn(.horn), count: 2, spacing: .milliseconds(1_500))
        }
    }

    /// The sub-table of `signal`, e.g. `prep_tick` for `[sound.prep_tick]`.
    public static func key(_ signal: Signal) -> String {
        signal.rawValue.replacing("-", with: "_")
    }

    /// The sub-table of the class start.
    public static let classStartKey = "class_start"

    /// Why `name` cannot be an ALSA PCM device name, or `nil`.
    public static func deviceProblem(_ name: String) -> String? {
        isALSAName(name) ? nil : "\(escapedBasicString(name)) is not a usable ALSA device name; use 1 to "
            + "\(maximumNameLength) printable ASCII characters, e.g. \"default\", \"hw:1,0\" or \"plughw:CARD=Device\""
    }

    /// Why `name` cannot be an ALSA simple mixer control name, or `nil`.
    public static func mixerProblem(_ name: String) -> String? {
        isALSAName(name) ? nil : "\(escapedBasicString(name)) is not a usable mixer control name; use 1 to "
            + "\(maximumNameLength) printable ASCII characters, e.g. \"PCM\" or \"Master\""
    }

    /// 1 to 64 printable ASCII characters (spaces inside, as in `Line Out`), none at either end.
    static func isALSAName(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, let last = scalars.last, scalars.count <= maximumNameLength else { return false }
        return first != " " && last != " " && scalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
    }
}

/// `[voice]`: spoken callouts (round numbers, time left) through the `[sound]` device.
public struct VoiceSettings: Sendable, Hashable {
    /// `enabled`: speak the callouts; default false.
    public var enabled = false
    /// `language`: a short language tag, `en`, `en-us`, `de`, `pt-br`; default `en`.
    public var language = "en"
    /// `voice`: the speech engine's variant name; `nil` = its default for the language.
    public var voice: String?
    /// `volume`: 0–100 percent of the `[sound]` volume, default 100.
    public var volume = 100

    public init() {}

    public static let maximumVoiceLength = 64

    /// Why `tag` is not a language tag, or `nil`: 2 or 3 lower-case letters, optionally `-`
    /// and a region or variant of 2 to 8 lower-case letters or digits.
    public static func languageProblem(_ tag: String) -> String? {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        let letters = { (s: Substring) in s.unicodeScalars.allSatisfy { $0.value >= 0x61 && $0.value <= 0x7A } }
        let alphanumerics = { (s: Substring) in s.unicodeScalars.allSatisfy { ($0.value >= 0x61 && $0.value <= 0x7A) || ($0.value >= 0x30 && $0.value <= 0x39) } }
        let primaryOK = (2...3).contains(parts[0].count) && letters(parts[0])
        let subtagOK = parts.count == 1 || (parts.count == 2 && (2...8).contains(parts[1].count) && alphanumerics(parts[1]))
        guard primaryOK, subtagOK else {
            return "\(escapedBasicString(tag)) is not a language tag; use 2 or 3 lower-case letters and an optional "
                + "region, e.g. \"en\", \"en-us\", \"de\" or \"pt-br\""
        }
        return nil
    }

    /// Why `name` cannot be a voice name, or `nil`: 1 to 64 ASCII letters, digits, `-`, `_`,
    /// `.` or `+`.
    public static func voiceProblem(_ name: String) -> String? {
        let ok = (1...maximumVoiceLength).contains(name.unicodeScalars.count) && name.unicodeScalars.allSatisfy { s in
            (s.value >= 0x30 && s.value <= 0x39) || (s.value >= 0x41 && s.value <= 0x5A) || (s.value >= 0x61 && s.value <= 0x7A)
                || s == "-" || s == "_" || s == "." || s == "+"
        }
        return ok ? nil : "\(escapedBasicString(name)) is not a usable voice name; use 1 to \(maximumVoiceLength) ASCII "
            + "letters, digits, '-', '_', '.' or '+', e.g. \"m3\" or \"en_US-lessac-medium\""
    }
}

extension SoundSettings {
    /// `sound: off, device default, volume 80%, 48000 Hz`, and the WAV files in use.
    var summary: String {
        var line = "sound: \(enabled ? "on" : "off"), device \(device)\(mixer.map { ", mixer \($0)" } ?? ""), volume \(volume)%, \(rate) Hz"
        let named = Signal.allCases.compactMap { s in cues[s].map { (Self.key(s), $0) } } + (classStart.map { [(Self.classStartKey, $0)] } ?? [])
        let files = named.compactMap { key, cue -> String? in
            guard case .file(let path, _) = cue.source else { return nil }
            return "\(key) \(path)"
        }
        if !files.isEmpty { line += "; files: " + files.joined(separator: ", ") }
        return line
    }
}
