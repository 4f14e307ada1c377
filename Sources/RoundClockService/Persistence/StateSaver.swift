import Logging
import Platform
import RoundClockCore

/// Persistence for the service: `restore` once at start-up, `snapshot` after every command
/// (every `Action` the loop reports), written by `StatePersistence` on its worker thread;
/// `save` snapshots and writes at once. Never fatal: failures are logged and the clock keeps
/// running.
public struct StateSaver: Sendable {
    public let store: StateStore
    public let readings: SystemReadings
    public let logger: Logger

    public init(store: StateStore, readings: SystemReadings, logger: Logger) {
        self.store = store
        self.readings = readings
        self.logger = logger
    }

    /// Writes `session` as it is at `now` (`now` must be on the clock whose instants the
    /// session holds; that clock is taken to run in step with CLOCK_BOOTTIME). Returns
    /// whether it was written; a failure is logged as one error line.
    @discardableResult
    public func save<Instant>(_ session: Session<Instant>, at now: Instant) -> Bool {
        let saved = snapshot(session, at: now)
        do {
            try store.save(saved)
            return true
        } catch {
            logger.error("state: cannot save: \(error)")
            return false
        }
    }

    /// `session` as it is at `now`, with its anchor mapped through CLOCK_BOOTTIME and
    /// CLOCK_REALTIME read now: what `save` writes. Reads clocks only, never the disk, so the
    /// render loop takes it at the change and a write made later stores the same anchor.
    public func snapshot<Instant>(_ session: Session<Instant>, at now: Instant) -> SavedSession {
        SavedSession(session, at: now, bootID: readings.bootID, boottime: readings.boottime(), realtime: readings.realtime())
    }

    /// Reads the state file and decides how the session comes back (see `ResumeDecision`).
    /// `resolve` maps the saved program name (preset, DSL line or custom name) to a program.
    /// No file → ready with `fallback`, outcome `nil`. A file that cannot be used — unreadable
    /// (not a regular file, too large, not UTF-8), corrupt, foreign, out of range, with an
    /// anchor no clock can have written (`StateFileFormat.checkAnchor`), or naming an unknown
    /// program — is set aside with a warning, and it is ready with `fallback`.
    /// `now` is evaluated right before CLOCK_BOOTTIME and CLOCK_REALTIME are read, after the
    /// file was read and parsed, so the anchor is mapped through readings of one instant.
    public func restore<Instant>(now: @autoclosure () -> Instant, fallback: Program, resumeAfterReboot: Bool,
                                 resolve: (String) -> Program?) -> (session: Session<Instant>, outcome: ResumeOutcome?) {
        let text: String?
        do throws(StateFileError) {
            text = try store.readText()
        } catch {
            setAside(because: error)
            return (Session(program: fallback), nil)
        }
        guard let text else {
            logger.info("state: no saved session in \(store.directory); starting ready with \(fallback.name)")
            return (Session(program: fallback), nil)
        }
        let saved: SavedSession
        let program: Program
        do throws(StateFileError) {
            saved = try StateFileFormat.decode(text)
            try StateFileFormat.checkAnchor(saved)
            guard let resolved = resolve(saved.program) else { throw .unknownProgram(saved.program) }
            program = resolved
        } catch {
            setAside(because: error)
            return (Session(program: fallback), nil)
        }
        let instant = now()
        let context = ResumeContext(bootID: readings.bootID, boottime: readings.boottime(), realtime: readings.realtime(),
                                    clockSynchronized: readings.clockSynchronized(), resumeAfterReboot: resumeAfterReboot)
        let decision: (session: Session<Instant>, outcome: ResumeOutcome) = ResumeDecision.decide(saved, program: program, context: context, now: instant)
        logger.info("state: \(program.name) \(decision.outcome)")
        var session = decision.session
        session.classSlot = saved.classSlot.map(WallTime.init(sinceEpoch:))
        return (session, decision.outcome)
    }

    private func setAside(because error: StateFileError) {
        do {
            let target = try store.setAside(realtime: readings.realtime())
            logger.warning("state: \(store.path) \(error); set aside as \(target)")
        } catch let renameError {
            logger.error("state: \(store.path) \(error); cannot set it aside: \(renameError)")
        }
    }
}
