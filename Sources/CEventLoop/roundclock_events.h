#ifndef ROUNDCLOCK_EVENTS_H
#define ROUNDCLOCK_EVENTS_H

// epoll(7), timerfd_create(2), eventfd(2) and signalfd(2) for the clock's event loop, and
// adjtimex(2) for the wall clock's sync state: Glibc's Swift module does not export them. Each wrapper is one call; errno is left as the
// call set it, and EINTR is retried by the Swift caller (Platform's `retryingEINTR`).

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/timex.h>

static inline int rc_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

// Watch `fd` with `token` for `events` (EPOLLIN, EPOLLOUT; errors and hang-ups are always
// reported); with `modify`, change what an already watched `fd` is watched for.
static inline int rc_epoll_watch(int epfd, int fd, uint64_t token, uint32_t events, int modify) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.u64 = token;
    return epoll_ctl(epfd, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
}

static inline int rc_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

// Waits up to `timeout_ms` (-1: no limit); copies each ready descriptor's token and events
// into plain arrays (struct epoll_event is packed on x86-64, which Swift imports poorly).
static inline int rc_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event ready[16];
    if (max > 16) max = 16;
    int count = epoll_wait(epfd, ready, max, timeout_ms);
    for (int i = 0; i < count; i++) {
        tokens[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return count;
}

static inline int rc_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK); }

// Arms the timer at an absolute CLOCK_MONOTONIC instant (a zero instant is moved to 1 ns,
// since zero disarms), or disarms it when `armed` is 0.
static inline int rc_timerfd_set(int fd, int armed, int64_t seconds, long nanoseconds) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    if (armed) {
        spec.it_value.tv_sec = seconds;
        spec.it_value.tv_nsec = nanoseconds;
        if (seconds <= 0 && nanoseconds <= 0) { spec.it_value.tv_sec = 0; spec.it_value.tv_nsec = 1; }
    }
    return timerfd_settime(fd, armed ? TFD_TIMER_ABSTIME : 0, &spec, NULL);
}

static inline int rc_eventfd_create(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

// A descriptor that reads the given signals (they must be blocked in every thread).
static inline int rc_signalfd_create(const int *signals, int count) {
    sigset_t mask;
    sigemptyset(&mask);
    for (int i = 0; i < count; i++) sigaddset(&mask, signals[i]);
    return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

// Blocks the given signals in the calling thread (and the threads it starts later).
static inline int rc_block_signals(const int *signals, int count) {
    sigset_t mask;
    sigemptyset(&mask);
    for (int i = 0; i < count; i++) sigaddset(&mask, signals[i]);
    return pthread_sigmask(SIG_BLOCK, &mask, NULL);
}

// The number of the next pending signal on a signalfd, 0 when none is pending, -1 on error.
static inline int rc_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t got = read(fd, &info, sizeof info);
    if (got == (ssize_t)sizeof info) return (int)info.ssi_signo;
    if (got < 0 && errno == EAGAIN) return 0;
    return -1;
}

// adjtimex(2) that only reads (`modes` 0) into `state`, read in Swift by field name: the
// clock state (TIME_OK ... TIME_ERROR), or -1 with errno (EPERM where the `@clock` system
// calls are denied).
static inline int rc_adjtimex_read(struct timex *state) {
    memset(state, 0, sizeof *state);
    return adjtimex(state);
}

#endif
