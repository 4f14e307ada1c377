#if canImport(Glibc)
import Glibc
#endif
import Platform
import Sound

/// The speaker's thread: opens the device, keeps the plan, runs the stream while a sound is
/// near and feeds it one period at a time. Everything here runs on that one thread.
struct SpeakerThread {
    let device: String
    let rate: Int
    let volume: Int
    let state: SpeakerState
    let onEvent: @Sendable (Speaker.Event) -> Void

    private var playback: ALSAPlayback?
    private var mixer: StreamMixer
    private var plan = PlaybackPlan()
    private var streaming = false
    private var underruns = 0
    private var failing = false
    private var nextAttempt: Int64 = 0

    init(device: String, rate: Int, volume: Int, state: SpeakerState, onEvent: @escaping @Sendable (Speaker.Event) -> Void) {
        self.device = device
        self.rate = rate
        self.volume = volume
        self.state = state
        self.onEvent = onEvent
        mixer = StreamMixer(rate: rate, channels: 1, volume: volume)
    }

    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    mutating func run() {
        while true {
            guard takeInbox() else { break }
            let now = Self.now()
            let near = plan.nextNanoseconds.map { $0 - now <= Speaker.leadNanoseconds } ?? false
            if !streaming && !near {
                idle(until: plan.nextNanoseconds.map { $0 - Speaker.leadNanoseconds })
                continue
            }
            guard let playback = openedDevice(now: now) else {
                idle(until: nextAttempt)
                continue
            }
            do {
                try feed(playback, now: now)
            } catch {
                lose(error)
            }
        }
        if let playback, streaming { try? playback.stop() }
        playback = nil
    }

    /// Moves what the loop handed over into the plan; false once the speaker is stopping.
    private mutating func takeInbox() -> Bool {
        let inbox = state.inbox.withLock { inbox -> SpeakerState.Inbox in
            let taken = inbox
            inbox.reported = []
            inbox.changed = false
            return taken
        }
        if inbox.stopping { return false }
        if inbox.changed {
            plan.announce(inbox.announced)
            plan.report(inbox.reported)
        }
        return true
    }

    /// Sleeps until `deadline` (CLOCK_MONOTONIC nanoseconds; nil: until the loop hands over
    /// something), or until the loop does.
    private func idle(until deadline: Int64?) {
        let handed = state.inbox.withLock { $0.changed || $0.stopping }
        if !handed { state.wakeup.wait(until: deadline.map { .nanoseconds($0) }) }
    }

    /// The open device, opening it if needed (at most once per retry interval while failing).
    private mutating func openedDevice(now: Int64) -> ALSAPlayback? {
        if let playback { return playback }
        guard now >= nextAttempt else { return nil }
        do {
            let opened = try ALSAPlayback(device: device, rate: rate, channels: 1)
            if failing {
                failing = false
                onEvent(.recovered(device))
            }
            onEvent(.opened(device: device, rate: opened.rate, channels: opened.channels,
                            periodFrames: opened.period, bufferFrames: opened.buffer))
            mixer = StreamMixer(rate: opened.rate, channels: opened.channels, volume: volume, retained: opened.buffer)
            playback = opened
            streaming = false
            return opened
        } catch {
            if !failing { onEvent(.failed(error)) }
            failing = true
            nextAttempt = now + Speaker.retryNanoseconds
            return nil
        }
    }

    /// One period, and an underrun (or a suspend) recovered wherever it shows: the stream
    /// starts again and the next sound is placed on the device's new position. Reported at
    /// the 1st, 2nd, 4th, 8th, ... one, so a starved thread cannot flood the log.
    private mutating func feed(_ playback: ALSAPlayback, now: Int64) throws(SystemError) {
        do {
            try feedPeriod(playback, now: now)
        } catch where error.errno == EPIPE || error.errno == ESTRPIPE {
            try recoverUnderrun(playback, from: error)
        }
    }

    private mutating func recoverUnderrun(_ playback: ALSAPlayback, from error: SystemError) throws(SystemError) {
        try playback.recover(from: error)
        underruns += 1
        if underruns & (underruns - 1) == 0 { onEvent(.underrun(count: underruns)) }
    }

    /// Waits for room, reads the device's position, places the sounds that start in the
    /// block about to be written, writes it. Stops the stream once every sound has played and
    /// none is near.
    private mutating func feedPeriod(_ playback: ALSAPlayback, now: Int64) throws(SystemError) {
        if !streaming {
            mixer.restart()
            streaming = true
        }
        if try playback.isRunning() {
            guard try playback.wait(milliseconds: 100) else { return }
        }
        // The position stamped at the device's last pointer update places the sounds; the
        // room there is now says how much to write.
        var position = try playback.position()
        let stamped = position.nanoseconds
        let room = try playback.free()
        if stamped == 0 || Self.now() - stamped > 1_000_000_000 { position = (room, Self.now()) }
        var free = room - room % playback.period
        guard free > 0 else {
            // Woken with less than a period of room: a millisecond's nap, never a busy loop
            // (the thread may run at SCHED_FIFO).
            Self.nap(nanoseconds: 1_000_000)
            return
        }
        var clock: StreamClock?
        // Before the stream runs, its first frame's instant is unknown: silence only.
        if try playback.isRunning() {
            let stream = StreamClock(written: mixer.written, queued: Int64(playback.buffer - position.free),
                                     at: position.nanoseconds, rate: playback.rate)
            clock = stream
            // A sound due in frames already queued (one reported late: a skip, a press), or one
            // queued and then taken back by an announcement (a pause), takes those frames back,
            // all but two periods ahead of the device, and they are mixed again.
            let placement = try plan.place(into: &mixer, clock: stream, before: mixer.written + Int64(free)) {
                (frames: Int) throws(SystemError) -> Int in
                try playback.rewind(upTo: frames, margin: 2 * playback.period)
            }
            free += placement.tookBack
            let late = placement.late.max() ?? 0
            if late > Int64(2 * playback.period) {
                onEvent(.late(milliseconds: Int(late * 1_000 / Int64(playback.rate)), tookBack: placement.tookBack))
            }
            plan.forget(before: now - 30_000_000_000)
        }
        // At most four periods a turn: after a rewind the device is two periods from the
        // frames taken back, so the first of them are rendered and queued at once; the rest
        // follow on the next turns. A block the device refused (it ran dry meanwhile) is
        // queued again once it is restarted, not lost.
        let block = mixer.render(frames: min(free, 4 * playback.period))
        do {
            _ = try playback.write(block)
        } catch where error.errno == EPIPE || error.errno == ESTRPIPE {
            try recoverUnderrun(playback, from: error)
            _ = try playback.write(block)
        }
        // Done: nothing near, and the device has played the last sound's last frame (what is
        // still queued is silence).
        let near = plan.nextNanoseconds.map { $0 - now <= Speaker.leadNanoseconds } ?? false
        if !near, let clock, clock.frame >= mixer.soundEnd {
            try playback.stop()
            streaming = false
        }
    }

    /// Sleeps `nanoseconds` on CLOCK_MONOTONIC.
    static func nap(nanoseconds: Int) {
        var duration = timespec(tv_sec: 0, tv_nsec: nanoseconds)
        _ = clock_nanosleep(CLOCK_MONOTONIC, 0, &duration, nil)
    }

    /// The device failed: logged once, closed, reopened after the retry interval.
    private mutating func lose(_ error: SystemError) {
        if !failing { onEvent(.failed(error)) }
        failing = true
        playback = nil
        streaming = false
        mixer.restart()
        nextAttempt = Self.now() + Speaker.retryNanoseconds
    }
}
