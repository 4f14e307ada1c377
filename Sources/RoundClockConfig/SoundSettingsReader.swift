import RoundClockCore
import Sound
import TOML

extension SoundSettings {
    /// `[sound]`, every key checked; WAV files are read and parsed here (unless not
    /// `readingFiles`), so a bad one is a config error naming the file.
    static func read(_ table: inout TOMLReader, configFile: String, readingFiles: Bool = true) throws(ConfigError) -> SoundSettings {
        var sound = SoundSettings()
        if let enabled = try table.bool("enabled") { sound.enabled = enabled }
        if let device = try table.string("device") {
            if let problem = deviceProblem(device) { throw table.fail("device", problem) }
            sound.device = device
        }
        if let volume = try table.int("volume", in: volumes) { sound.volume = volume }
        if let mixer = try table.string("mixer") {
            if let problem = mixerProblem(mixer) { throw table.fail("mixer", problem) }
            sound.mixer = mixer
        }
        if let rate = try table.int("rate", in: rates) { sound.rate = rate }
        var files = SoundFiles(configFile: configFile, reading: readingFiles)
        for signal in Signal.allCases {
            guard var cueTable = try table.table(key(signal)) else { continue }
            sound.cues[signal] = try cue(&cueTable, default: defaultCue(signal), files: &files)
        }
        if var cueTable = try table.table(classStartKey) {
            sound.classStart = try cue(&cueTable, default: defaultClassStart, files: &files)
        }
        try table.finish()
        return sound
    }

    /// One `[sound.<signal>]` table: keys left out keep the default cue's. Without
    /// `spacing_ms`, a cue whose default repeats keeps its default spacing, any other plays
    /// its sounds back to back. `nil` for `sound = "none"`.
    private static func cue(_ table: inout TOMLReader, default fallback: SoundCue, files: inout SoundFiles) throws(ConfigError) -> SoundCue? {
        let name = try table.string("sound")
        let count = try table.int("count", in: counts)
        let spacingMs = try table.int("spacing_ms", in: spacingsMs)
        try table.finish()
        var source = fallback.source
        if let name {
            if name == "none" { return nil }
            if let builtIn = BuiltInSound(rawValue: name) { source = .builtIn(builtIn) } else { source = try files.source(name, table) }
        }
        let spacing: Duration? = spacingMs.map { .milliseconds($0) } ?? (fallback.count > 1 ? fallback.spacing : nil)
        return SoundCue(source, count: count ?? fallback.count, spacing: spacing)
    }
}

/// The WAV files one `[sound]` table names, each read and parsed once however many signals
/// use it.
struct SoundFiles {
    let configFile: String
    /// False: each file's path is resolved, the file left unread (a source without samples).
    let reading: Bool
    private var read: [String: PCM] = [:]

    init(configFile: String, reading: Bool = true) {
        self.configFile = configFile
        self.reading = reading
    }

    static let choices = "\"bell\", \"horn\", \"beep\", \"tick\", \"none\" or the path of a WAV file"

    /// The file `value` names (relative to the config file's directory), read and checked:
    /// 16-bit PCM, mono or stereo, at most `WAV.maximumBytes`.
    mutating func source(_ value: String, _ table: TOMLReader) throws(ConfigError) -> SoundSource {
        guard !value.isEmpty else { throw table.fail("sound", "empty; use \(Self.choices)") }
        let path = try table.path(value, key: "sound", configFile: configFile)
        guard reading else { return .file(path: path, pcm: PCM(rate: 48_000, channels: 1, samples: [])) }
        if let pcm = read[path] { return .file(path: path, pcm: pcm) }
        func fail(_ why: String) -> ConfigError { table.fail("sound", "WAV file \(escapedBasicString(path)): \(why)") }
        let bytes: [UInt8]
        do {
            bytes = try readFileBytes(path, limit: WAV.maximumBytes, tooLarge: "larger than \(WAV.maximumBytes >> 20) MiB; use a shorter sound")
        } catch {
            let opening = error.message.hasPrefix("cannot open")
            throw fail(error.message + (opening ? "; a sound is \(Self.choices)" : ""))
        }
        let pcm: PCM
        do throws(WAV.Problem) { pcm = try WAV.parse(bytes) } catch { throw fail(error.description) }
        read[path] = pcm
        return .file(path: path, pcm: pcm)
    }
}

extension VoiceSettings {
    /// `[voice]`, every key checked.
    static func read(_ table: inout TOMLReader) throws(ConfigError) -> VoiceSettings {
        var voice = VoiceSettings()
        if let enabled = try table.bool("enabled") { voice.enabled = enabled }
        if let language = try table.string("language") {
            if let problem = languageProblem(language) { throw table.fail("language", problem) }
            voice.language = language
        }
        if let name = try table.string("voice") {
            if let problem = voiceProblem(name) { throw table.fail("voice", problem) }
            voice.voice = name
        }
        if let volume = try table.int("volume", in: SoundSettings.volumes) { voice.volume = volume }
        try table.finish()
        return voice
    }
}
