import ArgumentParser
import ControlProtocol
import I2C
import Logging
import Panels
import Platform
import RoundClockConfig
import RoundClockCore
import RoundClockService

/// The clock put together: the board's panels (a `BoardDisplay` over the given I2C devices,
/// started), the controller (program and settings from the config; the session restored
/// from the state directory or started at t = 0), the observers and the render loop, all on
/// one clock. Built here once for every way the clock runs — `simulate`, `run` on a board,
/// `run --simulate` in real or virtual time: each hands in only what differs, then runs
/// the result its own way (`simulate` to the loop's end, `run` as a service).
struct ClockAssembly<Waiter: LoopWaiter> {
    typealias C = Waiter.WaitClock
    /// How the loop waits, on the run's clock: the event loop for real time, or virtual
    /// time; chosen by the caller, which started the event loop.
    var waiter: Waiter
    var clock: C { waiter.clock }
    /// t = 0 of the frames file, of `--until` and of the scripted presses, read by the
    /// caller (by `run` before any device is opened).
    var start: C.Instant
    /// `clock` is a `VirtualClock`: the wall time and the saved anchors move with it, and a
    /// loop with nothing scheduled ends instead of waiting (only the script could wake it;
    /// `run --virtual` always has a stop instant).
    var virtual: Bool
    /// `--wall-time`: the local wall time at `start`; `nil`: the system's (`SimulatedWallTime.source`).
    var startWall: WallTime?
    /// The controller's settings (MODE catalog, long press, cadence, brightness schedule,
    /// idle clock) and how a saved session resumes.
    var config: Config
    var board: Board
    var program: Program
    /// Where button edges arrive as they happen (GPIO); a simulation posts none.
    var inbox = ButtonInbox<C.Instant>()
    /// `--events`, counted from `start`.
    var presses: [ScriptedPress] = []
    var stop: StopCondition<C.Instant>
    /// Who hears what the loop shows and sounds, in this order.
    var observers: [any DisplayObserver]
    /// Who hears every event of the loop (the watchdog's heartbeat, the session on the
    /// control socket), in this order; persistence follows them.
    var events: [any LoopObserver<C.Instant>] = []
    /// Where the session is kept; `nil`: not kept.
    var persistence: Persistence? = nil
    /// The process's worker thread for disk writes (`run`); nil: written on the loop's thread.
    var worker: BlockingWorker? = nil
    /// Start the session at `start` (`simulate` without `--ready`); its `start` action and the
    /// signals due then are reported with the loop's first turn, as for a START press at t = 0.
    var autostart = false
    /// A setting the clock could not take (the card's refused file): on the ready panels
    /// until the first press.
    var notice: SetupNotice? = nil
    /// Where each display event of the start-up (a panel that did not answer) is told.
    var reportStartupEvent: @Sendable (DisplayEvent) -> Void

    /// The state directory of `run` and what a restored session must match.
    struct Persistence {
        var directory: String
        /// `--program` given: a saved session of another program is not resumed.
        var programGiven: Bool
        var logger: Logger
        /// Told whether the session is kept, at start-up and at every change of it.
        var report: @Sendable (ControlState.Persistence) -> Void = { _ in }
    }

    /// The parts, wired and ready to run.
    struct Assembled<Device: I2CDevice> {
        let display: BoardDisplay<Device>
        let controller: Controller<C.Instant>
        /// What `autostart` produced, for the loop's first turn.
        let pending: [Occurrence<C.Instant>]
        let loop: RenderLoop<Waiter>
        /// Keeps the session (`nil`: not kept), also at shutdown (`finish`).
        let persistence: StatePersistence?
    }

    /// Builds and starts the display over `devices` (one per panel, in the board's order;
    /// `readBack`: read each panel's RAM back after a commit), then the controller and the loop.
    /// The loop sees the display as `Board` (`ConcreteBoard`), so its calls run code
    /// specialized for the device.
    func assemble<Board: ConcreteBoard>(_: Board.Type, devices: sending [Board.Device], readBack: Bool) async -> Assembled<Board.Device> {
        let wallTime = SimulatedWallTime.source(start: start, startWall: startWall, virtual: virtual)
        let display = BoardDisplay(specs: board.panels, devices: devices,
                                   brightness: config.brightness.level(at: wallTime(start)), readBack: readBack)
        for event in await display.start() { reportStartupEvent(event) }
        let saver = persistence.flatMap(stateSaver)
        var kept: StatePersistence?
        if let saver, let persistence {
            kept = StatePersistence(saver: saver, worker: worker, report: persistence.report)
            kept?.start()
        }
        var controller = controller(restoringFrom: saver)
        let pending = autostart ? controller.perform(.start, at: start) : []
        // At a change the loop takes only the snapshot; the file is written on a worker thread.
        var events = self.events
        if let kept { events.append(kept.observer(on: clock)) }
        let loop = RenderLoop(
            waiter: waiter, start: start, inbox: inbox, display: Board(board: display),
            observer: Observers(members: observers, events: events),
            wallTime: wallTime, stop: stop, endWhenIdle: virtual,
            script: presses.flatMap { $0.edges(from: start) })
        return Assembled(display: display, controller: controller, pending: pending, loop: loop, persistence: kept)
    }

    /// The controller with the program and the config's settings, holding the saved session
    /// when there is one to resume.
    private func controller(restoringFrom saver: StateSaver?) -> Controller<C.Instant> {
        var controller = Controller<C.Instant>(
            program: program, catalog: config.catalog, hasModeButton: board.hasModeButton,
            longPress: config.buttons.longPress, cadence: config.cadence, brightness: config.brightness,
            idleClockAfter: config.idleClockAfter)
        controller.classStarts = config.classStarts
        controller.panelWidths = board.panelWidths
        controller.setupNotice = notice
        guard let saver, let persistence else { return controller }
        // `now` is read inside restore, next to its CLOCK_BOOTTIME reading: `start` lies
        // before the devices were opened and initialised (tens of ms on a slow machine),
        // and would put the restored anchor, and every later change, that much early.
        // The controller takes the restored session at that same instant (which signals
        // are already past), not at `start`.
        var restoredAt = start
        let restored = saver.restore(now: { restoredAt = clock.now; return restoredAt }(), fallback: program,
                                     resumeAfterReboot: config.resumeAfterReboot, resolve: config.resolveProgram)
        if !persistence.programGiven || restored.session.program.name == program.name {
            controller.restore(restored.session, at: restoredAt)
        }
        return controller
    }

    /// The saver over the state directory; if the system's readings cannot be had, the
    /// session is not kept (logged), and the clock runs all the same.
    private func stateSaver(_ persistence: Persistence) -> StateSaver? {
        do {
            let system = try SystemReadings.system()
            let readings = virtual ? system.advancing(with: clock, from: start) : system
            return StateSaver(store: StateStore(directory: persistence.directory), readings: readings, logger: persistence.logger)
        } catch {
            persistence.logger.error("state: \(error); the session will not be kept across restarts")
            return nil
        }
    }
}

/// The end of a run's outputs: the terminal view stops drawing, then the frames file is
/// flushed and closed; a write error is one line and its exit status (73, 74).
func finishOutputs(terminal: TerminalPanel?, recorder: FramesRecorder?) async throws {
    await terminal?.finish()
    do { try await recorder?.finish() } catch {
        printError(error.description)
        throw ExitCode(error.exitCode)
    }
}
