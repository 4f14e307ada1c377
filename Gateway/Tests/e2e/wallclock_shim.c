/* An LD_PRELOAD library that gives one process tree a wall clock of its own: it shifts only
 * the reads of CLOCK_REALTIME (clock_gettime with CLOCK_REALTIME or CLOCK_REALTIME_COARSE,
 * gettimeofday, time, timespec_get):
 *
 *     realtime' = realtime + offset + drift_ppb * 1e-9 * (CLOCK_MONOTONIC now - base)
 *
 * CLOCK_MONOTONIC, CLOCK_BOOTTIME, timers and sleeps are left alone, so a timerfd on the
 * monotonic clock fires when it should. The parameters live in a small file (path in
 * ROUNDCLOCK_WALLCLOCK_FILE, written by wallclock.py) mapped shared. It holds two copies of
 * the parameters and a sequence number whose low bit names the current one: the writer fills
 * the other copy, then bumps the number, so a reader never waits for it and only reads again
 * when the number moved meanwhile. A test thus moves the clock at run time with plain writes,
 * and a read costs no system call beyond the real clock_gettime (itself the vDSO's).
 *
 * Built by wallclock.py: cc -shared -fPIC -O2 -o wallclock_shim.so wallclock_shim.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* The file's layout (little-endian, 64 bytes); wallclock.py packs the same. */
struct wallclock_copy {
    int64_t offset_ns;      /* added to every CLOCK_REALTIME read */
    int64_t drift_ppb;      /* parts per billion of the monotonic time since base_ns */
    int64_t base_ns;        /* CLOCK_MONOTONIC nanoseconds at which the drift term is 0 */
};
struct wallclock_params {
    uint64_t sequence;      /* its low bit: the copy in force */
    struct wallclock_copy copies[2];
    uint64_t unused;
};
_Static_assert(sizeof(struct wallclock_copy) == 24, "wallclock copy layout");
_Static_assert(sizeof(struct wallclock_params) == 64, "wallclock file layout");

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static clock_gettime_fn wallclock_real_gettime;
static const volatile struct wallclock_params *wallclock_params;
static int wallclock_state; /* 0: not looked at, 1: mapped, 2: pass through */

static clock_gettime_fn wallclock_real(void) {
    clock_gettime_fn real = __atomic_load_n(&wallclock_real_gettime, __ATOMIC_ACQUIRE);
    if (real == NULL) {
        real = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
        __atomic_store_n(&wallclock_real_gettime, real, __ATOMIC_RELEASE);
    }
    return real;
}

/* Maps the parameters file once; a process without one (or with a bad one) passes through. */
static const volatile struct wallclock_params *wallclock_map(void) {
    int state = __atomic_load_n(&wallclock_state, __ATOMIC_ACQUIRE);
    if (state == 1) return wallclock_params;
    if (state == 2) return NULL;
    const volatile struct wallclock_params *mapped = NULL;
    const char *path = getenv("ROUNDCLOCK_WALLCLOCK_FILE");
    int fd = path && *path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        void *p = mmap(NULL, sizeof(struct wallclock_params), PROT_READ, MAP_SHARED, fd, 0);
        close(fd);
        if (p != MAP_FAILED) mapped = p;
    }
    /* Two threads may race here: each maps, one mapping wins, the other stays unused. */
    wallclock_params = mapped;
    __atomic_store_n(&wallclock_state, mapped ? 1 : 2, __ATOMIC_RELEASE);
    return mapped;
}

/* The shift now, in nanoseconds; `real` reads CLOCK_MONOTONIC for the drift term. */
static int64_t wallclock_shift(clock_gettime_fn real) {
    const volatile struct wallclock_params *p = wallclock_map();
    if (p == NULL) return 0;
    for (;;) {
        uint64_t before = __atomic_load_n(&p->sequence, __ATOMIC_ACQUIRE);
        const volatile struct wallclock_copy *c = &p->copies[before & 1];
        int64_t offset = c->offset_ns, drift = c->drift_ppb, base = c->base_ns;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&p->sequence, __ATOMIC_RELAXED) != before) continue;
        if (drift == 0) return offset;
        struct timespec mono;
        real(CLOCK_MONOTONIC, &mono);
        int64_t since = (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec - base;
        return offset + (int64_t)((__int128)since * drift / 1000000000);
    }
}

static void wallclock_add(struct timespec *ts, int64_t ns) {
    int64_t total = (int64_t)ts->tv_nsec + ns % 1000000000;
    ts->tv_sec += ns / 1000000000 + total / 1000000000;
    total %= 1000000000;
    if (total < 0) {
        total += 1000000000;
        ts->tv_sec -= 1;
    }
    ts->tv_nsec = total;
}

static int wallclock_realtime(clockid_t id, struct timespec *ts) {
    clock_gettime_fn real = wallclock_real();
    int result = real(id, ts);
    if (result == 0) wallclock_add(ts, wallclock_shift(real));
    return result;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE) return wallclock_realtime(id, ts);
    return wallclock_real()(id, ts);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    (void)tz; /* obsolete; Linux's glibc fills nothing useful there either */
    /* glibc declares tv nonnull, yet callers may pass NULL: the empty asm hides the
     * declaration from the optimizer, so the test below stays. */
    struct timeval *out = tv;
    __asm__("" : "+r"(out));
    if (out == NULL) return 0;
    struct timespec ts;
    int result = wallclock_realtime(CLOCK_REALTIME, &ts);
    if (result == 0) {
        out->tv_sec = ts.tv_sec;
        out->tv_usec = ts.tv_nsec / 1000;
    }
    return result;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (wallclock_realtime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}

int timespec_get(struct timespec *ts, int base) {
    if (base != TIME_UTC || wallclock_realtime(CLOCK_REALTIME, ts) != 0) return 0;
    return base;
}
