import ControlProtocol
import Logging
import Platform
import RoundClockCore
import Synchronization

/// Keeps the session in the state directory without holding up the render loop, and without
/// ever stopping the clock. At a change the loop only takes the snapshot (`keep`: the clock
/// readings the saved anchor needs, so a write made later stores the same anchor); the
/// write and its fsyncs run on a `BlockingWorker`, which writes only the newest snapshot
/// not yet written.
///
/// A directory that cannot be written (read-only file system, full disk, wrong owner, not a
/// directory) is one error line naming the file and errno; the clock runs on, the snapshot
/// waits, and the write is tried again at the next change and every `retryInterval` until it
/// works: then one info line. Each write first makes the directory again if it was removed.
/// `report` hears the state (on, or off with the reason) at `start` and at every change of it.
public final class StatePersistence: Sendable {
    public typealias Status = ControlState.Persistence

    public let saver: StateSaver
    public let retryInterval: Duration
    private let worker: BlockingWorker?
    private let report: @Sendable (Status) -> Void
    private struct Shared {
        /// The newest snapshot not yet written.
        var pending: SavedSession?
        var status = Status(on: true)
    }
    private let shared = Mutex(Shared())
    private static let key = "state"

    /// Writes on `worker` (the process's one worker thread); nil: on the caller's thread.
    public init(saver: StateSaver, worker: BlockingWorker?, retryInterval: Duration = .seconds(30),
                report: @escaping @Sendable (Status) -> Void = { _ in }) {
        self.saver = saver
        self.worker = worker
        self.retryInterval = retryInterval
        self.report = report
    }

    /// Whether the session is being kept, and if not why.
    public var status: Status { shared.withLock { $0.status } }

    /// At start-up, before the loop: makes the directory like `mkdir -p` and checks it can be
    /// written (a failure is the error line and the retries), then reports the state.
    public func start() {
        do throws(SystemError) {
            try saver.store.prepareDirectory()
        } catch {
            failed(error)
            return
        }
        report(status)
    }

    /// The session as it is at `now`, to be written (the render loop, at a change): clock
    /// readings only; the write happens on the worker.
    public func keep<Instant>(_ session: Session<Instant>, at now: Instant) {
        let saved = saver.snapshot(session, at: now)
        shared.withLock { $0.pending = saved }
        guard let worker else { return write() }
        worker.post(Self.key, write)
    }

    /// The loop's observer that keeps the session after every action that changed it, at
    /// `clock.now`, read next to the CLOCK_BOOTTIME and CLOCK_REALTIME readings (the turn's
    /// `now` lies before the turn's display commit; the saved anchor would be late by it).
    public func observer<C: Clock & Sendable>(on clock: C) -> KeepingObserver<C>
    where C.Duration == Duration, C.Instant: Sendable {
        KeepingObserver(persistence: self, clock: clock)
    }

    /// The final save, at shutdown: keeps `session` at `now` and waits until the worker has
    /// written it (after whatever was queued before).
    public func finish<Instant>(_ session: Session<Instant>, at now: Instant) async {
        keep(session, at: now)
        await worker?.drain()
    }

    /// The worker's job: the directory made if missing, the newest snapshot written; a
    /// failure puts the snapshot back (unless a newer one came) and tries again later.
    private func write() {
        let saved = shared.withLock { s in
            defer { s.pending = nil }
            return s.pending
        }
        do throws(SystemError) {
            try saver.store.prepareDirectory()
            if let saved { try saver.store.save(saved) }
        } catch {
            if let saved { shared.withLock { $0.pending = $0.pending ?? saved } }
            failed(error)
            return
        }
        let recovered = shared.withLock { s in
            defer { s.status = Status(on: true) }
            return !s.status.on
        }
        if recovered {
            saver.logger.info("state: saving in \(saver.store.directory) works again")
            report(Status(on: true))
        }
    }

    /// One error line when saving stops working (none while it keeps failing), the state
    /// reported when its reason changes, and a retry after `retryInterval`.
    private func failed(_ error: SystemError) {
        let reason = error.description
        let (first, changed) = shared.withLock { s in
            defer { s.status = Status(on: false, reason: reason) }
            return (s.status.on, s.status.reason != reason)
        }
        if first {
            saver.logger.error("state: cannot save the session in \(saver.store.directory): \(error); the clock runs on without keeping it")
        }
        if changed { report(Status(on: false, reason: reason)) }
        worker?.post(Self.key, after: retryInterval, write)
    }
}

/// `StatePersistence.observer(on:)`: keeps the session the loop reports changed by an action.
public struct KeepingObserver<C: Clock & Sendable>: LoopObserver where C.Duration == Duration, C.Instant: Sendable {
    let persistence: StatePersistence
    let clock: C

    public func observe(_ event: LoopEvent<C.Instant>) {
        if case .sessionChangedByAction(let session, _) = event { persistence.keep(session, at: clock.now) }
    }
}
