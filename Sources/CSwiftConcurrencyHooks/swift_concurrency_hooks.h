#ifndef ROUNDCLOCK_SWIFT_CONCURRENCY_HOOKS_H
#define ROUNDCLOCK_SWIFT_CONCURRENCY_HOOKS_H

// The global-executor hooks of Swift's concurrency runtime (libswift_Concurrency,
// swift/include/swift/Runtime/ConcurrencyHooks.def). Each is a pointer to a swiftcall
// function that the runtime calls instead of enqueueing on libdispatch when it is set;
// declared here as plain pointers (same size and representation) so that the linker binds
// them directly, with the runtime linked dynamically or statically (--static-swift-stdlib).
//   enqueueGlobal:             void (Job *job, original)
//   enqueueGlobalWithDelay:    void (unsigned long long delayNs, Job *job, original)
//   enqueueGlobalWithDeadline: void (long long sec, long long nsec, long long tsec,
//                                    long long tnsec, int clock, Job *job, original)
extern void *_Nullable swift_task_enqueueGlobal_hook;
extern void *_Nullable swift_task_enqueueGlobalWithDelay_hook;
extern void *_Nullable swift_task_enqueueGlobalWithDeadline_hook;

// Where each hook lives, for Swift (which sees a C global as shared mutable state).
static inline void *_Nullable *_Nonnull roundclock_enqueueGlobal_hook(void) { return &swift_task_enqueueGlobal_hook; }
static inline void *_Nullable *_Nonnull roundclock_enqueueGlobalWithDelay_hook(void) { return &swift_task_enqueueGlobalWithDelay_hook; }
static inline void *_Nullable *_Nonnull roundclock_enqueueGlobalWithDeadline_hook(void) { return &swift_task_enqueueGlobalWithDeadline_hook; }

#endif
