#if canImport(Glibc)
import Glibc
#endif
import Platform
import Sound
import Synchronization

/// The clock's speaker: an ALSA playback device fed by a thread of its own, so the render
/// loop only hands it sounds (`announce`, `report`) and never waits on it. Each sound's
/// first frame is placed on the frame the device plays at the sound's CLOCK_MONOTONIC
/// instant, read from the device's own position timestamps; the stream starts with silence
/// ahead of the first sound and stops once the last one has played.
///
/// A device that fails (unplugged, taken by another program) is logged once, then reopened
/// every half second until it works again (logged once more); an underrun recovers by itself.
public final class Speaker: Sendable {
    /// What happened to the device, for the log: each outage once, then its end.
    public enum Event: Sendable, Equatable {
        case failed(SystemError)
        case recovered(String)
        /// A sound started this late after its instant (one reported after it was due), though
        /// `tookBack` queued frames were taken back for it.
        case late(milliseconds: Int, tookBack: Int)
        /// The stream ran dry (the thread was late) and started again: the 1st, 2nd, 4th, ... time.
        case underrun(count: Int)
        /// The device is open, at the rate, channels, period and buffer it granted.
        case opened(device: String, rate: Int, channels: Int, periodFrames: Int, bufferFrames: Int)
    }

    public let device: String
    private let rate: Int
    private let volume: Int
    private let onEvent: @Sendable (Event) -> Void
    private let state: SpeakerState
    private let thread: PosixThread

    /// How early the stream starts before a sound: time enough to open, prepare and fill it.
    static let leadNanoseconds: Int64 = 1_500_000_000
    /// How long a failed device waits before the next attempt to open it.
    static let retryNanoseconds: Int64 = 500_000_000

    /// Starts the speaker's thread on `device` at `rate` Hz with `volume` percent software gain.
    public init(device: String, rate: Int, volume: Int, onEvent: @escaping @Sendable (Event) -> Void) throws(SystemError) {
        self.device = device
        self.rate = rate
        self.volume = volume
        self.onEvent = onEvent
        let state = SpeakerState(wakeup: try MonotonicWakeup(owner: "speaker thread"))
        self.state = state
        thread = try Self.start {
            var feeder = SpeakerThread(device: device, rate: rate, volume: volume, state: state, onEvent: onEvent)
            feeder.run()
        }
    }

    private static func start(_ body: @escaping @Sendable () -> Void) throws(SystemError) -> PosixThread {
        do {
            return try PosixThread.start(named: "rc-speaker", body)
        } catch {
            throw SystemError(device: "speaker thread", operation: "pthread_create", errno: error.errno)
        }
    }

    /// The sounds due next, ahead of their instants; replaces the previous announcement.
    public func announce(_ sounds: [ScheduledSound]) {
        state.hand { $0.announced = sounds }
    }

    /// Sounds whose instant has come: played at once unless already placed.
    public func report(_ sounds: [ScheduledSound]) {
        guard !sounds.isEmpty else { return }
        state.hand { $0.reported += sounds }
    }

    /// Stops the stream at once and ends the thread; returns when it has.
    public func stop() {
        state.hand { $0.stopping = true }
        thread.join()
    }
}

/// What the render loop hands the speaker's thread: the inbox, and the wake-up its thread
/// blocks in.
final class SpeakerState: Sendable {
    struct Inbox {
        var announced: [ScheduledSound] = []
        var reported: [ScheduledSound] = []
        var changed = false
        var stopping = false
    }

    let inbox = Mutex(Inbox())
    let wakeup: MonotonicWakeup

    init(wakeup: MonotonicWakeup) { self.wakeup = wakeup }

    /// Changes the inbox with `change`, then wakes the thread to see it.
    func hand(_ change: (inout Inbox) -> Void) {
        inbox.withLock { inbox in
            change(&inbox)
            inbox.changed = true
        }
        wakeup.signal()
    }
}
