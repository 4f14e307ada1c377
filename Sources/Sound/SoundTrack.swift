/// A whole session's sound, laid out in virtual time: each sound starts at the frame
/// round(t × rate) of its instant t, and overlapping sounds add (clipped to 16 bits). What
/// `simulate --virtual --sound-file` writes, so a program can be checked by ear and by sample.
public struct SoundTrack: Sendable, Hashable {
    public let rate: Int
    public let channels: Int
    public private(set) var samples: [Int16] = []

    public init(rate: Int, channels: Int) {
        self.rate = rate
        self.channels = channels
    }

    public var frames: Int { samples.count / channels }

    /// The frame of the instant `nanoseconds` after the track's start: round(t × rate), halves
    /// rounded up, in integers.
    public func frame(atNanoseconds nanoseconds: Int64) -> Int {
        Int((nanoseconds * Int64(rate) + 500_000_000) / 1_000_000_000)
    }

    /// Adds `sound` (converted to the track's rate and channels) starting at `nanoseconds`.
    public mutating func place(_ sound: PCM, atNanoseconds nanoseconds: Int64) {
        let pcm = sound.rate == rate && sound.channels == channels ? sound : sound.converted(rate: rate, channels: channels)
        // A sound that starts before the track keeps only its part after the start.
        let start = max(nanoseconds, 0) == nanoseconds ? frame(atNanoseconds: nanoseconds) * channels : 0
        let skipped = nanoseconds < 0 ? min(pcm.samples.count, frame(atNanoseconds: -nanoseconds) * channels) : 0
        let end = start + pcm.samples.count - skipped
        if samples.count < end { samples += [Int16](repeating: 0, count: end - samples.count) }
        for i in skipped..<pcm.samples.count {
            let at = start + i - skipped
            samples[at] = Int16(clamping: Int(samples[at]) + Int(pcm.samples[i]))
        }
    }

    /// Silence up to `nanoseconds`, so the track lasts as long as the session.
    public mutating func extend(toNanoseconds nanoseconds: Int64) {
        let end = frame(atNanoseconds: nanoseconds) * channels
        if samples.count < end { samples += [Int16](repeating: 0, count: end - samples.count) }
    }

    public var pcm: PCM { PCM(rate: rate, channels: channels, samples: samples) }
}
