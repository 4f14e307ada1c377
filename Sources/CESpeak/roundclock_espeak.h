/*
 * Tiny prefixed wrappers over espeak-ng (Debian libespeak-ng1), loaded at run time with
 * dlopen(3) when a voice is asked for, so the clock does not link it (nor the sound and
 * display libraries it links): its header gives the types, and every call goes through the
 * function pointers rc_espeak_open looked up. espeak-ng is initialized once in synchronous
 * mode (no audio device, no thread of its own), a voice selected by name ("en", "en+m3"),
 * and a phrase synthesized into 16-bit mono samples collected through the synth callback.
 * Swift calls espeak-ng only through these (Sources/Voice). espeak-ng keeps global state and
 * is not thread-safe: the caller serializes every call.
 */
#ifndef ROUNDCLOCK_ESPEAK_H
#define ROUNDCLOCK_ESPEAK_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <espeak-ng/speak_lib.h>

/* The espeak-ng functions the wrappers call, typed by its header's own declarations. */
typedef struct {
    __typeof__(espeak_Initialize) *initialize;
    __typeof__(espeak_SetSynthCallback) *set_synth_callback;
    __typeof__(espeak_SetVoiceByName) *set_voice_by_name;
    __typeof__(espeak_Synth) *synth;
} rc_espeak_library;

/* dlsym(3) of `name`, unless an earlier lookup failed (`*error` set); a failure sets `*error`
 * to dlerror's line, which lives until the next dl call of this thread. */
static inline void *rc_espeak_symbol(void *handle, const char *name, const char **error) {
    if (*error) return NULL;
    void *symbol = dlsym(handle, name);
    if (!symbol) *error = dlerror();
    if (!symbol && !*error) *error = "a function of espeak-ng is missing";
    return symbol;
}

/* Loads `soname` and looks up the functions into `library`: NULL on success (the library stays
 * loaded for the life of the process), else dlerror(3)'s one line, e.g. "libespeak-ng.so.1:
 * cannot open shared object file: No such file or directory". A library without the functions
 * stays loaded too: dlclose(3) would end the life of dlerror's line. */
static inline const char *rc_espeak_open(const char *soname, rc_espeak_library *library) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) return dlerror();
    const char *error = NULL;
    library->initialize = (__typeof__(espeak_Initialize) *)rc_espeak_symbol(handle, "espeak_Initialize", &error);
    library->set_synth_callback = (__typeof__(espeak_SetSynthCallback) *)rc_espeak_symbol(handle, "espeak_SetSynthCallback", &error);
    library->set_voice_by_name = (__typeof__(espeak_SetVoiceByName) *)rc_espeak_symbol(handle, "espeak_SetVoiceByName", &error);
    library->synth = (__typeof__(espeak_Synth) *)rc_espeak_symbol(handle, "espeak_Synth", &error);
    return error;
}

/* The samples of one phrase, grown by the synth callback. */
typedef struct {
    int16_t *samples;
    size_t count;
    size_t capacity;
    int failed; /* 1 when an allocation failed */
} rc_espeak_buffer;

/* espeak-ng's synth callback: appends the chunk to the buffer passed as the user data. */
static int rc_espeak_collect(short *wav, int count, espeak_EVENT *events) {
    rc_espeak_buffer *buffer = events ? (rc_espeak_buffer *)events->user_data : NULL;
    if (!buffer || !wav || count <= 0 || buffer->failed) return 0;
    if (buffer->count + (size_t)count > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 16384;
        while (capacity < buffer->count + (size_t)count) capacity *= 2;
        int16_t *grown = realloc(buffer->samples, capacity * sizeof(int16_t));
        if (!grown) { buffer->failed = 1; return 1; }
        buffer->samples = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->samples + buffer->count, wav, (size_t)count * sizeof(int16_t));
    buffer->count += (size_t)count;
    return 0;
}

/* Initializes espeak-ng for synchronous synthesis with the collecting callback; returns
 * its sample rate (Hz), or a negative value when its data cannot be found. */
static inline int rc_espeak_initialize(const rc_espeak_library *library) {
    int rate = library->initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, NULL, 0);
    if (rate <= 0) return -1;
    library->set_synth_callback(rc_espeak_collect);
    return rate;
}

/* Selects the voice "language" or "language+variant"; 0 on success, else espeak's error. */
static inline int rc_espeak_select(const rc_espeak_library *library, const char *name) {
    return (int)library->set_voice_by_name(name);
}

/* Synthesizes the UTF-8 text into buffer (which the caller frees with rc_espeak_free);
 * 0 on success, else espeak's error, or -1 when memory ran out. */
static inline int rc_espeak_synthesize(const rc_espeak_library *library, const char *text, rc_espeak_buffer *buffer) {
    espeak_ERROR rc = library->synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, buffer);
    if (rc != EE_OK) return (int)rc;
    return buffer->failed ? -1 : 0;
}

static inline void rc_espeak_free(rc_espeak_buffer *buffer) {
    free(buffer->samples);
    buffer->samples = NULL;
    buffer->count = buffer->capacity = 0;
}

#endif
