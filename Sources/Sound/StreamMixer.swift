/// The sounds of a playback stream, each placed at a frame of the stream, mixed a block at a
/// time: what a speaker writes to its device. Frames count from the stream's start.
public struct StreamMixer: Sendable {
    public let rate: Int
    public let channels: Int
    /// Software gain, 0 to 100 percent of full scale.
    public var volume: Int
    /// Frames rendered so far: the next block starts here.
    public private(set) var written: Int64 = 0
    /// How many rendered frames `rewind` may take back: voices are kept this long after
    /// they end.
    public let retained: Int64
    /// Each sound placed, with the key of the scheduled sound it plays (nil for none).
    private var voices: [(key: ScheduledSound.Key?, start: Int64, pcm: PCM)] = []

    public init(rate: Int, channels: Int, volume: Int = 100, retained: Int = 0) {
        self.rate = rate
        self.channels = channels
        self.volume = volume
        self.retained = Int64(retained)
    }

    /// The frame after the last sound still placed: from there on, silence.
    public private(set) var soundEnd: Int64 = 0

    /// No sound is playing or waiting: the next blocks are silent.
    public var isSilent: Bool { written >= soundEnd }

    /// Adds `sound` (converted to the stream's rate and channels) at `frame`, or at the next
    /// block if that frame was already rendered; `key` names it for `remove`. Returns the
    /// frame it starts at.
    @discardableResult
    public mutating func place(_ sound: PCM, atFrame frame: Int64, key: ScheduledSound.Key? = nil) -> Int64 {
        let pcm = sound.rate == rate && sound.channels == channels ? sound : sound.converted(rate: rate, channels: channels)
        let start = max(frame, written)
        if pcm.frames > 0 {
            voices.append((key, start, pcm))
            soundEnd = max(soundEnd, start + Int64(pcm.frames))
        }
        return start
    }

    /// The next `frames` frames, interleaved: every voice that overlaps them added, scaled
    /// by the volume and clipped to 16 bits.
    public mutating func render(frames: Int) -> [Int16] {
        if voices.isEmpty {
            written += Int64(frames)
            return [Int16](repeating: 0, count: frames * channels)
        }
        var sum = [Int32](repeating: 0, count: frames * channels)
        let end = written + Int64(frames)
        for voice in voices where voice.start < end {
            let from = Int(max(voice.start, written) - voice.start)
            let to = min(voice.pcm.frames, Int(end - voice.start))
            guard from < to else { continue }
            let offset = Int(voice.start - written)
            voice.pcm.samples.withUnsafeBufferPointer { source in
                for frame in from..<to {
                    let out = (frame + offset) * channels, at = frame * channels
                    for channel in 0..<channels { sum[out + channel] += Int32(source[at + channel]) }
                }
            }
        }
        voices.removeAll { $0.start + Int64($0.pcm.frames) <= end - retained }
        written = end
        let gain = Int32(max(0, min(volume, 100)))
        return sum.map { Int16(clamping: gain == 100 ? $0 : $0 * gain / 100) }
    }

    /// Takes back the last `frames` rendered frames (at most `retained`), to render them
    /// again with a sound placed since: the device took back as many.
    public mutating func rewind(frames: Int) {
        written -= Int64(min(Int64(frames), retained))
    }

    /// The earliest frame a sound of `keys` starts on among the frames already rendered: to
    /// remove it, the stream is rewound to there.
    public func renderedStart(of keys: Set<ScheduledSound.Key>) -> Int64? {
        voices.filter { $0.start < written && $0.key.map(keys.contains) == true }.map(\.start).min()
    }

    /// Removes the sounds of `keys` that start on a frame not rendered yet (or taken back);
    /// one already started stays whole. Returns the keys removed.
    public mutating func remove(_ keys: Set<ScheduledSound.Key>) -> Set<ScheduledSound.Key> {
        var removed: Set<ScheduledSound.Key> = []
        voices.removeAll { voice in
            guard let key = voice.key, keys.contains(key), voice.start >= written else { return false }
            removed.insert(key)
            return true
        }
        // The voices dropped after they ended lie before `written`: only the kept ones count.
        if !removed.isEmpty { soundEnd = voices.map { $0.start + Int64($0.pcm.frames) }.max() ?? 0 }
        return removed
    }

    /// Forgets every sound and starts counting frames again (a new stream).
    public mutating func restart() {
        voices = []
        written = 0
        soundEnd = 0
    }
}
