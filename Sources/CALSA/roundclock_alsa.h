/*
 * Tiny prefixed wrappers over ALSA's libasound (Debian libasound2-dev): a playback PCM
 * opened by name, set up for 16-bit interleaved frames with CLOCK_MONOTONIC timestamps,
 * its position as (frames free, timestamp of the last pointer update), and one mixer
 * control's volume, and a capture PCM for the benchmarks. Swift calls snd_* only through
 * these (Sources/Speaker, Sources/RoundClockBench).
 *
 * Every function returns a negative errno on failure (ALSA's convention), else >= 0.
 */
#ifndef ROUNDCLOCK_ALSA_H
#define ROUNDCLOCK_ALSA_H

#include <stdint.h>
#include <string.h>
#include <time.h>
#include <alsa/asoundlib.h>

/* libasound prints its own errors to stderr; the clock reports them itself, on one line. */
static void rc_alsa_quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void rc_alsa_quiet(void) { snd_lib_error_set_handler(rc_alsa_quiet_handler); }

/* snd_pcm_open for playback, non-blocking: neither a busy device nor a full buffer waits. */
static inline int rc_pcm_open(snd_pcm_t **pcm, const char *name) {
    return snd_pcm_open(pcm, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK);
}

/* snd_pcm_open for capture, non-blocking (the benchmarks record what a loopback card plays). */
static inline int rc_pcm_open_capture(snd_pcm_t **pcm, const char *name) {
    return snd_pcm_open(pcm, name, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK);
}

static inline int rc_pcm_close(snd_pcm_t *pcm) { return snd_pcm_close(pcm); }

/* Starts a capture stream now. */
static inline int rc_pcm_start(snd_pcm_t *pcm) { return snd_pcm_start(pcm); }

/* Takes up to n captured interleaved frames; returns how many, or a negative errno. */
static inline long rc_pcm_read(snd_pcm_t *pcm, int16_t *frames, unsigned long n) {
    return snd_pcm_readi(pcm, frames, n);
}

/*
 * Interleaved S16_LE at the rate nearest *rate and the channel count nearest *channels,
 * periods near period_us and a buffer near buffer_us; the stream starts once start_frames
 * are queued, wakes when a period is free and stamps positions on CLOCK_MONOTONIC. What the
 * device granted comes back in *rate, *channels, *period and *buffer.
 */
static inline int rc_pcm_configure(snd_pcm_t *pcm, unsigned *rate, unsigned *channels, unsigned period_us,
                                   unsigned buffer_us, unsigned long *period, unsigned long *buffer) {
    snd_pcm_hw_params_t *hw;
    snd_pcm_sw_params_t *sw;
    snd_pcm_uframes_t p, b;
    int dir = 0, rc;
    snd_pcm_hw_params_alloca(&hw);
    snd_pcm_sw_params_alloca(&sw);
    if ((rc = snd_pcm_hw_params_any(pcm, hw)) < 0) return rc;
    if ((rc = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)) < 0) return rc;
    if ((rc = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE)) < 0) return rc;
    if ((rc = snd_pcm_hw_params_set_channels_near(pcm, hw, channels)) < 0) return rc;
    if ((rc = snd_pcm_hw_params_set_rate_near(pcm, hw, rate, &dir)) < 0) return rc;
    dir = 0;
    if ((rc = snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &buffer_us, &dir)) < 0) return rc;
    dir = 0;
    if ((rc = snd_pcm_hw_params_set_period_time_near(pcm, hw, &period_us, &dir)) < 0) return rc;
    if ((rc = snd_pcm_hw_params(pcm, hw)) < 0) return rc;
    if ((rc = snd_pcm_hw_params_get_period_size(hw, &p, &dir)) < 0) return rc;
    if ((rc = snd_pcm_hw_params_get_buffer_size(hw, &b)) < 0) return rc;
    if ((rc = snd_pcm_sw_params_current(pcm, sw)) < 0) return rc;
    if ((rc = snd_pcm_sw_params_set_start_threshold(pcm, sw, p)) < 0) return rc;
    if ((rc = snd_pcm_sw_params_set_avail_min(pcm, sw, p)) < 0) return rc;
    if ((rc = snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE)) < 0) return rc;
    if ((rc = snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC)) < 0) return rc;
    if ((rc = snd_pcm_sw_params(pcm, sw)) < 0) return rc;
    *period = p;
    *buffer = b;
    return 0;
}

/* Frames free in the buffer and the CLOCK_MONOTONIC time (ns) of the pointer update they
 * were counted at (snd_pcm_htimestamp); *ns is 0 when the driver gave no timestamp. */
static inline int rc_pcm_position(snd_pcm_t *pcm, unsigned long *avail, int64_t *ns) {
    snd_pcm_uframes_t a = 0;
    snd_htimestamp_t ts = {0, 0};
    int rc = snd_pcm_htimestamp(pcm, &a, &ts);
    if (rc < 0) return rc;
    *avail = a;
    *ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return 0;
}

/* Frames free now (snd_pcm_avail_update), or a negative errno (-EPIPE: underrun). */
static inline long rc_pcm_avail(snd_pcm_t *pcm) { return snd_pcm_avail_update(pcm); }

/* Waits up to timeout_ms for a period to be free: 1 ready, 0 timeout, negative errno. */
static inline int rc_pcm_wait(snd_pcm_t *pcm, int timeout_ms) { return snd_pcm_wait(pcm, timeout_ms); }

/* Queues up to n interleaved frames; returns how many, or a negative errno. */
static inline long rc_pcm_write(snd_pcm_t *pcm, const int16_t *frames, unsigned long n) {
    return snd_pcm_writei(pcm, frames, n);
}

/* Frames that can be taken back from what is queued and not yet played (snd_pcm_rewindable). */
static inline long rc_pcm_rewindable(snd_pcm_t *pcm) { return snd_pcm_rewindable(pcm); }

/* Takes back up to n queued frames, to be written again; returns how many, or a negative errno. */
static inline long rc_pcm_rewind(snd_pcm_t *pcm, unsigned long n) { return snd_pcm_rewind(pcm, n); }

/* After an underrun (-EPIPE) or a suspend (-ESTRPIPE): prepared to start again. */
static inline int rc_pcm_recover(snd_pcm_t *pcm, int err) { return snd_pcm_recover(pcm, err, 1); }

/* Stops at once, dropping what is queued; prepared again for the next start. */
static inline int rc_pcm_stop(snd_pcm_t *pcm) {
    int rc = snd_pcm_drop(pcm);
    return rc < 0 ? rc : snd_pcm_prepare(pcm);
}

/* 1 while the stream plays, 0 when stopped or prepared, -ENODEV once the device is gone. */
static inline int rc_pcm_running(snd_pcm_t *pcm) {
    snd_pcm_state_t s = snd_pcm_state(pcm);
    if (s == SND_PCM_STATE_DISCONNECTED) return -ENODEV;
    return s == SND_PCM_STATE_RUNNING ? 1 : 0;
}

/* The card a PCM name's mixer lives on: "hw:1" for "hw:1,0" or "plughw:1,0"; the name up to
 * its first comma otherwise ("hw:CARD=Device"), or "default". Written into out (size n). */
static inline void rc_mixer_card_of(const char *pcm, char *out, size_t n) {
    const char *colon = strchr(pcm, ':');
    if (!colon) { snprintf(out, n, "default"); return; }
    const char *args = colon + 1;
    size_t len = strcspn(args, ",");
    snprintf(out, n, "hw:%.*s", (int)len, args);
}

/* The playback volume of the simple control `control` on `card`, set to percent (0-100) of
 * its range; -ENOENT when the card has no such control. With percent < 0 only checks it. */
static inline int rc_mixer_set(const char *card, const char *control, int percent) {
    snd_mixer_t *mixer = NULL;
    snd_mixer_selem_id_t *id;
    snd_mixer_elem_t *elem;
    long min = 0, max = 0;
    int rc;
    snd_mixer_selem_id_alloca(&id);
    if ((rc = snd_mixer_open(&mixer, 0)) < 0) return rc;
    if ((rc = snd_mixer_attach(mixer, card)) < 0 || (rc = snd_mixer_selem_register(mixer, NULL, NULL)) < 0 ||
        (rc = snd_mixer_load(mixer)) < 0) {
        snd_mixer_close(mixer);
        return rc;
    }
    snd_mixer_selem_id_set_index(id, 0);
    snd_mixer_selem_id_set_name(id, control);
    elem = snd_mixer_find_selem(mixer, id);
    if (!elem || !snd_mixer_selem_has_playback_volume(elem)) {
        snd_mixer_close(mixer);
        return -ENOENT;
    }
    if (percent >= 0) {
        snd_mixer_selem_get_playback_volume_range(elem, &min, &max);
        rc = snd_mixer_selem_set_playback_volume_all(elem, min + (max - min) * (long)percent / 100);
        if (rc >= 0 && snd_mixer_selem_has_playback_switch(elem)) rc = snd_mixer_selem_set_playback_switch_all(elem, 1);
    }
    snd_mixer_close(mixer);
    return rc < 0 ? rc : 0;
}

/* ALSA's text for a negative errno it returned. */
static inline const char *rc_alsa_error(int err) { return snd_strerror(err); }

#endif
