import Logging
import Platform
import RoundClockConfig
import RoundClockService
import Sound
import Voice

/// The voice of `[voice]`: espeak-ng started for its language, and its callouts as sounds
/// for the speaker (rendered on a thread of their own) or for the sound track (in line).
enum VoiceSetup {
    /// The thread the speaker's callouts render on, as `top -H` shows it.
    static let threadName = "roundclock-voice"

    /// espeak-ng's voice for the settings; an error names `voice.enabled` in `file` when
    /// espeak-ng is not installed, else `voice.language`.
    static func voice(_ settings: VoiceSettings, file: String) throws(ConfigError) -> Voice {
        do {
            return try Voice(language: settings.language, variant: settings.voice)
        } catch {
            throw ConfigError(file: file, location: error.libraryMissing ? "voice.enabled" : "voice.language", message: error.description)
        }
    }

    /// Each phrase spoken, at `rate`, mono, at `[voice] volume` percent; a phrase that cannot
    /// be spoken is reported and left silent.
    static func render(_ voice: Voice, volume: Int, rate: Int, failed: @escaping @Sendable (VoiceError) -> Void) -> CalloutSounds.Render {
        { phrase in
            do throws(VoiceError) {
                return try voice.speak(phrase).converted(rate: rate, channels: 1).scaled(percent: volume)
            } catch {
                failed(error)
                return nil
            }
        }
    }

    /// The speaker's callouts: each program's phrases rendered when the program is chosen, on
    /// `roundclock-voice`, never on the render loop. The caller stops the worker.
    static func speakerCallouts(_ voice: Voice, volume: Int, rate: Int, failed: @escaping @Sendable (VoiceError) -> Void)
        throws(SystemError) -> (callouts: CalloutSounds, worker: BlockingWorker) {
        let worker = try BlockingWorker(name: threadName)
        let render = Self.render(voice, volume: volume, rate: rate, failed: failed)
        return (CalloutSounds(render: render) { name, job in worker.post("voice " + name, job) }, worker)
    }

    /// `run`'s speaker callouts with `[voice] enabled`. Nil, logged, when the voice cannot
    /// speak or its thread cannot start: the clock runs on with its signals' sounds only.
    static func speakerCallouts(_ config: Config, logger: Logger) -> (callouts: CalloutSounds, worker: BlockingWorker)? {
        guard config.voice.enabled else { return nil }
        do {
            let voice = try Self.voice(config.voice, file: config.file)
            return try speakerCallouts(voice, volume: config.voice.volume, rate: config.sound.rate) { error in
                logger.error("voice: \(error)")
            }
        } catch {
            logger.error("voice: \(error); running without callouts")
            return nil
        }
    }

    /// The sound track's callouts, rendered in line when a program is first seen: virtual
    /// time waits for them.
    static func trackCallouts(_ voice: Voice, volume: Int, rate: Int) -> CalloutSounds {
        let render = Self.render(voice, volume: volume, rate: rate) { error in printError("voice: \(error)") }
        return CalloutSounds(render: render) { _, job in job() }
    }
}
