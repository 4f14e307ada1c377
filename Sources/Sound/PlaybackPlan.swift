/// A sound due at a CLOCK_MONOTONIC instant. `id` and the instant together name it, so the
/// same sound announced ahead and reported again when it is due is played once.
public struct ScheduledSound: Sendable, Hashable {
    public struct Key: Sendable, Hashable {
        public var id: Int
        public var nanoseconds: Int64
    }

    public var id: Int
    public var nanoseconds: Int64
    public var pcm: PCM

    public init(id: Int, nanoseconds: Int64, pcm: PCM) {
        self.id = id
        self.nanoseconds = nanoseconds
        self.pcm = pcm
    }

    public var key: Key { Key(id: id, nanoseconds: nanoseconds) }
}

/// What a speaker will play: the sounds announced ahead (replaced by each announcement, so a
/// pause or a skip takes back what it cancels), the sounds reported due (kept until played),
/// and the ones already placed in the stream, which are never placed again.
public struct PlaybackPlan: Sendable {
    /// Sounds more than this late are dropped, not played.
    public static let staleAfter: Int64 = 1_000_000_000
    private var ahead: [ScheduledSound] = []
    private var due: [ScheduledSound] = []
    private var placed: Set<ScheduledSound.Key> = []

    public init() {}

    /// The sounds announced ahead now; the previous announcement's unplaced ones are dropped.
    public mutating func announce(_ sounds: [ScheduledSound]) {
        ahead = sounds.filter { !placed.contains($0.key) }
    }

    /// Sounds whose instant has come (or passed): played as soon as the stream allows.
    public mutating func report(_ sounds: [ScheduledSound]) {
        for sound in sounds where !placed.contains(sound.key) && !due.contains(where: { $0.key == sound.key }) {
            due.append(sound)
        }
    }

    /// The earliest instant of a sound not yet placed.
    public var nextNanoseconds: Int64? { (ahead + due).map(\.nanoseconds).min() }

    /// The frame of the earliest unplaced sound that starts before frame `end`, by `clock`.
    public func earliestFrame(clock: StreamClock, before end: Int64) -> Int64? {
        (ahead + due).filter { !placed.contains($0.key) }.map { clock.frame(atNanoseconds: $0.nanoseconds) }.filter { $0 < end }.min()
    }

    /// Places in `mixer` every sound that starts before frame `before`, on the frame `clock`
    /// gives for its instant (or at once, if that has been rendered); drops the ones more
    /// than `staleAfter` late. Returns how late each placed sound starts, in frames.
    public mutating func place(into mixer: inout StreamMixer, clock: StreamClock, before end: Int64) -> [Int64] {
        var late: [Int64] = []
        var keep: [ScheduledSound] = [], keepDue: [ScheduledSound] = []
        let staleFrames = Self.staleAfter * Int64(clock.rate) / 1_000_000_000
        for (sound, isDue) in ahead.map({ ($0, false) }) + due.map({ ($0, true) }) {
            guard !placed.contains(sound.key) else { continue }
            let frame = clock.frame(atNanoseconds: sound.nanoseconds)
            if frame >= end {
                if isDue { keepDue.append(sound) } else { keep.append(sound) }
                continue
            }
            placed.insert(sound.key)
            guard mixer.written - frame <= staleFrames else { continue }
            late.append(mixer.place(sound.pcm, atFrame: frame) - frame)
        }
        ahead = keep
        due = keepDue
        return late
    }

    /// Forgets placed sounds older than `nanoseconds`, keeping the set small.
    public mutating func forget(before nanoseconds: Int64) {
        placed = placed.filter { $0.nanoseconds >= nanoseconds }
    }
}
