#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import RoundClockConfig
import RoundClockCore
import RoundClockService
import Sound
import Speaker

/// The speaker of `run` (with `[sound] enabled = true`) and `simulate --sound`: started on the
/// configured ALSA device, and the observer that hands it the render loop's signals.
enum SpeakerSetup {
    /// Starts the speaker's thread; the mixer control, when named, is set to the volume (the
    /// samples then play at full scale). Its outages and recoveries go to `logger`. Nil, logged,
    /// when the thread cannot start: the clock runs on without sound.
    static func start(_ settings: SoundSettings, logger: Logger) -> Speaker? {
        var gain = settings.volume
        if let mixer = settings.mixer {
            do {
                try ALSAMixer.set(mixer, device: settings.device, percent: settings.volume)
                gain = 100
            } catch {
                logger.error("sound: \(error); the volume scales the samples instead")
            }
        }
        do {
            return try Speaker(device: settings.device, rate: settings.rate, volume: gain) { event in
                switch event {
                case .failed(let error): logger.error("sound: \(error); trying again every 0.5 s")
                case .recovered(let device): logger.notice("sound: device \"\(device)\" plays again")
                case let .late(milliseconds, tookBack):
                    logger.info("sound: a sound started \(milliseconds) ms after its instant (\(tookBack) queued frames taken back)")
                case .underrun(let count): logger.warning("sound: underrun \(count) (the speaker's thread was late); recovered")
                case let .opened(device, rate, channels, period, buffer):
                    logger.info("sound: playing on \"\(device)\" at \(rate) Hz, \(channels) channel\(channels == 1 ? "" : "s"), periods of \(period) frames, buffer \(buffer)")
                }
            }
        } catch {
            logger.error("sound: \(error); running without sound")
            return nil
        }
    }

    /// Each cue's sounds, rendered once at the configured rate: before the loop starts, so
    /// that the first turn is not late for them.
    struct Sounds {
        var signals: [Signal: [(offset: Duration, pcm: PCM)]] = [:]
        var classStart: [(offset: Duration, pcm: PCM)] = []

        init(_ settings: SoundSettings) {
            var rendered: [SoundSource: PCM] = [:]
            func strikes(_ cue: SoundCue) -> [(offset: Duration, pcm: PCM)] {
                let pcm = rendered[cue.source] ?? cue.source.pcm(rate: settings.rate, channels: 1)
                rendered[cue.source] = pcm
                return cue.onsets.map { ($0, pcm) }
            }
            for (signal, cue) in settings.cues { signals[signal] = strikes(cue) }
            classStart = settings.classStart.map(strikes) ?? []
        }
    }

    /// The loop's observer for `speaker`: the loop's instants placed on CLOCK_MONOTONIC by a
    /// reading taken next to `clock`; with `callouts`, the voice's with the signals' sounds.
    static func observer<C: Clock>(for speaker: Speaker, sounds: Sounds, callouts: CalloutSounds? = nil, clock: C,
                                   start: C.Instant) -> SpeakerObserver<C.Instant>
    where C.Duration == Duration, C.Instant: Sendable {
        let origin = SystemReadings.clockReading(CLOCK_MONOTONIC) - start.duration(to: clock.now)
        return SpeakerObserver(strikes: sounds.signals, classStart: sounds.classStart, callouts: callouts,
                               monotonic: { origin + start.duration(to: $0) }, announce: speaker.announce, report: speaker.report)
    }
}
