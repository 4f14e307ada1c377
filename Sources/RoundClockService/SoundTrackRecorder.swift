import Panels
import Platform
import RoundClockCore
import Sound
import Synchronization

/// What a signal sounds like: a built-in sound, played `count` times `spacing` apart.
public struct SignalSound: Sendable, Hashable {
    public var sound: BuiltInSound
    public var count: Int
    public var spacing: Duration

    public init(_ sound: BuiltInSound, count: Int = 1, spacing: Duration = .zero) {
        self.sound = sound
        self.count = count
        self.spacing = spacing
    }

    /// A bell to start a round, the ding-ding-ding to end it, three beeps for the warning,
    /// ticks for the last seconds, two beeps at halfway, the horn to switch and to finish.
    public static let standard: [Signal: SignalSound] = [
        .start: SignalSound(.bell),
        .end: SignalSound(.bell, count: 3, spacing: .milliseconds(400)),
        .finish: SignalSound(.horn),
        .warning: SignalSound(.beep, count: 3, spacing: .milliseconds(300)),
        .prepTick: SignalSound(.tick),
        .tick: SignalSound(.tick),
        .halfway: SignalSound(.beep, count: 2, spacing: .milliseconds(300)),
        .switch: SignalSound(.horn, count: 2, spacing: .milliseconds(1_500)),
    ]
}

/// `simulate --virtual --sound-file`: the whole session's sound in virtual time. Each
/// signal's sound starts at the frame round(t × rate) of its instant t (the frames file's
/// `t`), so a program can be checked by ear and by sample. Written as a WAV file at the end.
public final class SoundTrackRecorder: DisplayObserver {
    public let path: String
    private let sounds: [Signal: (SignalSound, PCM)]
    private let track: Mutex<SoundTrack>

    /// Renders the sounds once, at `rate`, mono.
    public init(path: String, rate: Int, sounds: [Signal: SignalSound] = SignalSound.standard) {
        self.path = path
        var rendered: [BuiltInSound: PCM] = [:]
        var bySignal: [Signal: (SignalSound, PCM)] = [:]
        for (signal, sound) in sounds {
            let pcm = rendered[sound.sound] ?? sound.sound.render(rate: rate)
            rendered[sound.sound] = pcm
            bySignal[signal] = (sound, pcm)
        }
        self.sounds = bySignal
        track = Mutex(SoundTrack(rate: rate, channels: 1))
    }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at: Duration) {}

    public func occurred(_ occurrence: LoopOccurrence, at since: Duration) {
        guard case .signal(let signal) = occurrence, let (sound, pcm) = sounds[signal] else { return }
        track.withLock { track in
            for strike in 0..<sound.count {
                track.place(pcm, atNanoseconds: Self.nanoseconds(since + sound.spacing * strike))
            }
        }
    }

    /// Writes the track, silent up to `end` (or to its last sound's end, if later).
    public func finish(at end: Duration) throws(SystemError) {
        let bytes = track.withLock { track in
            track.extend(toNanoseconds: Self.nanoseconds(end))
            return WAV.encode(track.pcm)
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        try DurableFiles.writeAtomically(bytes: bytes, path: path, temp: path + ".tmp", directory: directory.isEmpty ? "/" : directory)
    }

    static func nanoseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
    }
}
