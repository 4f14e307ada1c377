import CALSA
import Platform

/// One open ALSA playback PCM (any name: `default`, `hw:1,0`, `plughw:CARD=Device`), set up
/// for 16-bit interleaved frames with CLOCK_MONOTONIC position timestamps. Non-blocking:
/// `wait` is the only call that sleeps, and only as long as it is told. Used by one thread.
final class ALSAPlayback {
    let device: String
    let rate: Int
    let channels: Int
    /// Frames per period (the device wakes the writer once per period) and in the buffer.
    let period: Int
    let buffer: Int
    private let pcm: OpaquePointer

    /// Opens `device` and asks for `rate` Hz, `channels`, 5 ms periods and a 100 ms buffer
    /// (deep enough for a busy machine; a late sound takes queued frames back, so the depth
    /// does not delay it); what the device granted is in the properties.
    init(device: String, rate: Int, channels: Int) throws(SystemError) {
        rc_alsa_quiet()
        var handle: OpaquePointer?
        var rc = rc_pcm_open(&handle, device)
        guard rc >= 0, let handle else { throw Self.error(device, "snd_pcm_open", rc) }
        var grantedRate = UInt32(rate), grantedChannels = UInt32(channels)
        var period: UInt = 0, buffer: UInt = 0
        rc = rc_pcm_configure(handle, &grantedRate, &grantedChannels, 5_000, 100_000, &period, &buffer)
        guard rc >= 0 else {
            rc_pcm_close(handle)
            throw Self.error(device, "configure (S16_LE, \(rate) Hz)", rc)
        }
        self.device = device
        self.pcm = handle
        self.rate = Int(grantedRate)
        self.channels = Int(grantedChannels)
        self.period = Int(period)
        self.buffer = Int(buffer)
    }

    deinit { rc_pcm_close(pcm) }

    /// Waits up to `milliseconds` for a period to be free; true when one is.
    func wait(milliseconds: Int32) throws(SystemError) -> Bool {
        let rc = rc_pcm_wait(pcm, milliseconds)
        guard rc >= 0 else { throw Self.error(device, "snd_pcm_wait", rc) }
        return rc > 0
    }

    /// Frames free, and the CLOCK_MONOTONIC nanoseconds of the pointer update they were
    /// counted at (0 when the driver stamps none).
    func position() throws(SystemError) -> (free: Int, nanoseconds: Int64) {
        var free: UInt = 0
        var nanoseconds: Int64 = 0
        let rc = rc_pcm_position(pcm, &free, &nanoseconds)
        guard rc >= 0 else { throw Self.error(device, "snd_pcm_htimestamp", rc) }
        return (Int(free), nanoseconds)
    }

    /// Frames free now, read from the device's pointer.
    func free() throws(SystemError) -> Int {
        let n = rc_pcm_avail(pcm)
        guard n >= 0 else { throw Self.error(device, "snd_pcm_avail_update", Int32(n)) }
        return n
    }

    /// Queues interleaved `samples`; returns the frames taken (fewer when the buffer filled).
    func write(_ samples: [Int16]) throws(SystemError) -> Int {
        let n = samples.withUnsafeBufferPointer { rc_pcm_write(pcm, $0.baseAddress, UInt(samples.count / channels)) }
        if n == -Int(EAGAIN) { return 0 }
        guard n >= 0 else { throw Self.error(device, "snd_pcm_writei", Int32(n)) }
        return n
    }

    /// Takes back up to `frames` queued frames that have not been played, leaving `margin`
    /// frames before the device's pointer; returns how many were taken back.
    func rewind(upTo frames: Int, margin: Int) throws(SystemError) -> Int {
        let rewindable = rc_pcm_rewindable(pcm)
        guard rewindable >= 0 else { throw Self.error(device, "snd_pcm_rewindable", Int32(rewindable)) }
        let wanted = min(frames, rewindable - margin)
        guard wanted > 0 else { return 0 }
        let n = rc_pcm_rewind(pcm, UInt(wanted))
        guard n >= 0 else { throw Self.error(device, "snd_pcm_rewind", Int32(n)) }
        return n
    }

    /// After an underrun or a suspend: prepared to start again. Any other error is rethrown.
    func recover(from error: SystemError) throws(SystemError) {
        let rc = rc_pcm_recover(pcm, -error.errno)
        guard rc >= 0 else { throw Self.error(device, "snd_pcm_recover", rc) }
    }

    /// Stops at once, dropping what is queued, ready for the next start.
    func stop() throws(SystemError) {
        let rc = rc_pcm_stop(pcm)
        guard rc >= 0 else { throw Self.error(device, "snd_pcm_drop", rc) }
    }

    /// Whether the stream is playing (false before its first period and after `stop`).
    func isRunning() throws(SystemError) -> Bool {
        let rc = rc_pcm_running(pcm)
        guard rc >= 0 else { throw Self.error(device, "snd_pcm_state", rc) }
        return rc == 1
    }

    /// `sound device "NAME": OPERATION failed: WHY`, with ALSA's words for its own codes.
    static func error(_ device: String, _ operation: String, _ rc: Int32) -> SystemError {
        let code = -rc
        let reason = code > 0 && code < 4096 ? nil : String(cString: rc_alsa_error(rc))
        return SystemError(device: "sound device \"\(device)\"", operation: operation, errno: code, reason: reason)
    }
}

/// The ALSA mixer control that sets a device's volume.
public enum ALSAMixer {
    /// Sets `control` (e.g. `PCM`, `Master`) on the card `device` plays on to `percent` of
    /// its range and unmutes it; with `percent` nil only checks that the control exists.
    public static func set(_ control: String, device: String, percent: Int?) throws(SystemError) {
        rc_alsa_quiet()
        var card = [CChar](repeating: 0, count: 128)
        rc_mixer_card_of(device, &card, card.count)
        let rc = rc_mixer_set(card, control, Int32(percent ?? -1))
        guard rc >= 0 else {
            let reason = rc == -ENOENT ? "no playback volume control \"\(control)\"" : nil
            throw SystemError(device: "mixer of sound device \"\(device)\"", operation: percent == nil ? "find \"\(control)\"" : "set \"\(control)\"",
                              errno: -rc, reason: reason ?? (rc < -4095 ? String(cString: rc_alsa_error(rc)) : nil))
        }
    }
}

/// Whether an ALSA playback device can be opened and set up as the speaker needs it
/// (`check-config`): the device, then closed at once.
public enum ALSADevice {
    public static func check(_ device: String, rate: Int) throws(SystemError) {
        _ = try ALSAPlayback(device: device, rate: rate, channels: 1)
    }
}
