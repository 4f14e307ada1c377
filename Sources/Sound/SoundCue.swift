/// Where a sound comes from: one of the clock's own, or a user's WAV file, read and checked
/// when the configuration is loaded.
public enum SoundSource: Sendable, Hashable, CustomStringConvertible {
    case builtIn(BuiltInSound)
    /// A WAV file's samples at the file's own rate and channel count; `path` names it.
    case file(path: String, pcm: PCM)

    /// The sound at `rate` with `channels` (a file's samples converted, a built-in rendered).
    public func pcm(rate: Int, channels: Int) -> PCM {
        switch self {
        case .builtIn(let sound): sound.render(rate: rate).converted(rate: rate, channels: channels)
        case .file(_, let pcm): pcm.converted(rate: rate, channels: channels)
        }
    }

    /// How long one sound lasts.
    public var duration: Duration {
        switch self {
        case .builtIn(let sound): sound.duration
        case .file(_, let pcm): .nanoseconds(pcm.nanoseconds)
        }
    }

    /// The built-in sound's name (`bell`) or the file's path.
    public var description: String {
        switch self {
        case .builtIn(let sound): sound.rawValue
        case .file(let path, _): path
        }
    }
}

/// What one signal sounds like: `source` played `count` times, each sound starting `spacing`
/// after the one before it (a spacing shorter than the sound lets the sounds ring over each
/// other, as a bell's ding-ding-ding does).
public struct SoundCue: Sendable, Hashable {
    public var source: SoundSource
    public var count: Int
    public var spacing: Duration

    /// Without a spacing, the sounds play back to back: one sound's length apart.
    public init(_ source: SoundSource, count: Int = 1, spacing: Duration? = nil) {
        self.source = source
        self.count = count
        self.spacing = spacing ?? source.duration
    }

    /// When each sound starts, after the signal's instant.
    public var onsets: [Duration] { (0..<count).map { spacing * $0 } }
}
