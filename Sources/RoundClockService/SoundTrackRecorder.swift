import Panels
import Platform
import RoundClockCore
import Sound
import Synchronization

/// `simulate --virtual --sound-file`: the whole session's sound in virtual time. Each
/// signal's sound starts at the frame round(t × rate) of its instant t (the frames file's
/// `t`), so a program can be checked by ear and by sample. Written as a WAV file at the end.
/// A signal without a cue is silent.
public final class SoundTrackRecorder: DisplayObserver {
    public let path: String
    private let sounds: [Signal: (cue: SoundCue, pcm: PCM)]
    private let track: Mutex<SoundTrack>

    /// Renders or converts each cue's sound once, to `rate`, mono.
    public init(path: String, rate: Int, cues: [Signal: SoundCue]) {
        self.path = path
        var converted: [SoundSource: PCM] = [:]
        var bySignal: [Signal: (cue: SoundCue, pcm: PCM)] = [:]
        for (signal, cue) in cues {
            let pcm = converted[cue.source] ?? cue.source.pcm(rate: rate, channels: 1)
            converted[cue.source] = pcm
            bySignal[signal] = (cue, pcm)
        }
        self.sounds = bySignal
        track = Mutex(SoundTrack(rate: rate, channels: 1))
    }

    public func committed(_ face: Face, panels: [PanelReadout], status: Status, at: Duration) {}

    public func occurred(_ occurrence: LoopOccurrence, at since: Duration) {
        guard case .signal(let signal, _) = occurrence, let (cue, pcm) = sounds[signal] else { return }
        track.withLock { track in
            for onset in cue.onsets {
                track.place(pcm, atNanoseconds: Self.nanoseconds(since + onset))
            }
        }
    }

    /// Adds `pcm` at `since` (counted as the frames file's `t`).
    func place(_ pcm: PCM, at since: Duration) {
        track.withLock { $0.place(pcm, atNanoseconds: Self.nanoseconds(since)) }
    }

    /// The loop's reader that adds the voice's callouts to the track: each on the frame of
    /// its signal's instant, for the program the session runs. `callouts` should render in
    /// line (virtual time waits for it), so no callout is missed.
    public func callouts<Instant>(_ callouts: CalloutSounds, start: Instant) -> any LoopObserver<Instant>
    where Instant: InstantProtocol & Sendable, Instant.Duration == Duration {
        TrackCallouts(recorder: self, callouts: callouts, start: start)
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

/// `SoundTrackRecorder.callouts`: the running program's name from the session events, and its
/// callouts placed when their signals fire.
private final class TrackCallouts<Instant: InstantProtocol & Sendable>: LoopObserver where Instant.Duration == Duration {
    private let recorder: SoundTrackRecorder
    private let callouts: CalloutSounds
    private let start: Instant
    private let program = Mutex<String?>(nil)

    init(recorder: SoundTrackRecorder, callouts: CalloutSounds, start: Instant) {
        self.recorder = recorder
        self.callouts = callouts
        self.start = start
    }

    func observe(_ event: LoopEvent<Instant>) {
        switch event {
        case .session(let session, _, _), .sessionChangedByAction(let session, _):
            program.withLock { $0 = session.program.name }
            callouts.prepare(session.program)
        case .signals(let fired, _):
            guard let name = program.withLock({ $0 }) else { return }
            for signal in fired {
                guard let pcm = callouts.sound(program: name, offset: signal.offset, signal: signal.signal) else { continue }
                recorder.place(pcm, at: start.duration(to: signal.at))
            }
        default:
            return
        }
    }
}
