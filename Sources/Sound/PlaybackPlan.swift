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
/// pause or a skip takes back what it cancels, even once placed in the stream), the sounds
/// reported due (kept until played), and the ones already placed, which are never placed again.
public struct PlaybackPlan: Sendable {
    /// Sounds more than this late are dropped, not played.
    public static let staleAfter: Int64 = 1_000_000_000
    private var ahead: [ScheduledSound] = []
    private var due: [ScheduledSound] = []
    private var placed: Set<ScheduledSound.Key> = []
    /// Placed from an announcement and not reported due: a later announcement may take them back.
    private var revocable: Set<ScheduledSound.Key> = []
    /// The revocable sounds the newest announcement no longer holds: the next `place` takes
    /// them out of the stream.
    public private(set) var retracted: Set<ScheduledSound.Key> = []

    /// How each `place` went: how late each sound placed starts, and how many queued frames
    /// were taken back, both in frames.
    public struct Placement: Sendable {
        public var late: [Int64]
        public var tookBack: Int
    }

    public init() {}

    /// The sounds announced ahead now; the previous announcement's others are dropped, and
    /// taken back from the stream if placed there already.
    public mutating func announce(_ sounds: [ScheduledSound]) {
        retracted = revocable.subtracting(sounds.map(\.key))
        ahead = sounds.filter { !placed.contains($0.key) }
    }

    /// Sounds whose instant has come (or passed): played as soon as the stream allows, and
    /// never taken back.
    public mutating func report(_ sounds: [ScheduledSound]) {
        for sound in sounds {
            revocable.remove(sound.key)
            retracted.remove(sound.key)
            if !placed.contains(sound.key) && !due.contains(where: { $0.key == sound.key }) { due.append(sound) }
        }
    }

    /// The earliest instant of a sound not yet placed.
    public var nextNanoseconds: Int64? { (ahead + due).map(\.nanoseconds).min() }

    /// Places in `mixer` every sound that starts before frame `end`, on the frame `clock`
    /// gives for its instant, and removes the retracted ones. The rendered frames either
    /// touches are first taken back with `rewind` (asked for a number of frames, it takes back
    /// what the device can spare and returns how many); where they could not be, a new sound
    /// starts at once and a retracted one stays. Sounds more than `staleAfter` late are dropped.
    public mutating func place<E: Error>(into mixer: inout StreamMixer, clock: StreamClock, before end: Int64,
                                         rewind: (Int) throws(E) -> Int) throws(E) -> Placement {
        var now: [(sound: ScheduledSound, frame: Int64, isDue: Bool)] = [], stale: [ScheduledSound.Key] = []
        var keep: [ScheduledSound] = [], keepDue: [ScheduledSound] = [], seen = placed
        let staleFrames = Self.staleAfter * Int64(clock.rate) / 1_000_000_000
        // Due ones first: a sound both announced and reported is due, and placed once.
        for (sound, isDue) in due.map({ ($0, true) }) + ahead.map({ ($0, false) }) where seen.insert(sound.key).inserted {
            let frame = clock.frame(atNanoseconds: sound.nanoseconds)
            if frame >= end {
                if isDue { keepDue.append(sound) } else { keep.append(sound) }
            } else if mixer.written - frame > staleFrames {
                stale.append(sound.key)
            } else {
                now.append((sound, frame, isDue))
            }
        }
        // Taken back before anything changes: a device that fails leaves the plan as it was.
        var back = 0
        if let from = (now.map(\.frame) + [mixer.renderedStart(of: retracted)].compactMap { $0 }).min(), from < mixer.written {
            back = try rewind(Int(mixer.written - from))
            mixer.rewind(frames: back)
        }
        ahead = keep
        due = keepDue
        placed.subtract(mixer.remove(retracted))
        placed.formUnion(stale)
        revocable.subtract(retracted)
        retracted = []
        var late: [Int64] = []
        for (sound, frame, isDue) in now {
            placed.insert(sound.key)
            if !isDue { revocable.insert(sound.key) }
            late.append(mixer.place(sound.pcm, atFrame: frame, key: sound.key) - frame)
        }
        return Placement(late: late, tookBack: back)
    }

    /// Forgets placed sounds older than `nanoseconds`, keeping the set small.
    public mutating func forget(before nanoseconds: Int64) {
        placed = placed.filter { $0.nanoseconds >= nanoseconds }
        revocable.formIntersection(placed)
    }
}
