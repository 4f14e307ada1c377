import ArgumentParser
import CommandLineSupport
import ControlProtocol
import I2C
import LinuxHardware
import Logging
import Panels
import Platform
import RoundClockConfig
import RoundClockCore
import RoundClockService
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// `roundclock run`: the clock as a service. Reads the config, restores the saved session,
/// drives the board's panels, buttons, buzzer, stack light and horn (or, with `--simulate`,
/// emulated chips and scripted buttons, optionally in virtual time) until SIGTERM/SIGINT/SIGHUP
/// or `--until`, then saves the state, leaves the panels showing the configured picture and
/// switches the buzzer, the horn and the lamps off.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the clock as a service on a board's panels, buttons and buzzer.",
        discussion: """
            Reads --config (default \(Config.defaultPath)); --board and --program override it. \
            Without a config file, --board FILE or --simulate run on built-in defaults; with neither it exits 64. \
            A bad config exits 78 (EX_CONFIG); a frames file that cannot be created, 73. \
            SIGTERM, SIGINT and SIGHUP stop it gracefully. \
            The session is saved on every command and restored on start; \
            a state directory that cannot be written is logged and the clock runs without keeping the session. \
            --simulate --virtual runs the same service in virtual time (needs --until or --events).
            """)

    @Option(help: "Configuration file.")
    var config: String?

    @Option(help: "Board file (boards/*.toml), overriding the config's board.")
    var board: String?

    @OptionGroup var session: SessionOptions

    @Flag(help: "Emulated chips instead of /dev/i2c-N; buttons only from --events.")
    var simulate = false

    @Flag(help: "With --simulate: virtual time, jumping straight to each next deadline; needs --until or --events.")
    var virtual = false

    @Option(help: "With --simulate: the local wall time at the start, HH:MM or HH:MM:SS (clock, idle clock, brightness schedule).")
    var wallTime: String?

    @Option(help: "Where the session state is kept (default: $STATE_DIRECTORY or /var/lib/roundclock; with --simulate: not kept unless given).")
    var stateDir: String?

    @Option(help: "Fixed brightness 0-15, overriding the config's day/night schedule.", transform: Run.brightnessLevel)
    var brightness: Int?

    @Option(help: "The frames file's t: start (seconds since the start) or monotonic (CLOCK_MONOTONIC seconds, to compare clocks on one host; not with --virtual).")
    var framesClock: FramesClock = .start

    @Option(help: "Listen for remote commands on this Unix socket (default under systemd: $RUNTIME_DIRECTORY/control.sock; else none).")
    var control: String?

    @Option(help: "The card's refusal, written by apply-card: shown on the ready panels and the phone page (default: /run/roundclock-card/error; with --simulate: none unless given).")
    var cardError: String?

    /// `--brightness`: digits only (no sign, unlike `Int("+5")`), 0 to 15.
    static func brightnessLevel(_ text: String) throws -> Int {
        guard let level = WholeNumber.parse(text, atMost: 15) else { throw ValidationError("allowed are 0 to 15, digits only") }
        return Int(level)
    }

    func run() async throws {
        // SIGTERM/SIGINT/SIGHUP are blocked since the process entry (Entry, ShutdownSignals):
        // one before the service group runs waits in the signalfd and stops it gracefully.
        JournalLogHandler.bootstrap()
        let logger = Logger(label: "roundclock")
        var setup = try self.setup() // a ValidationError is one line and exit 64 (RoundClockCommand.main)
        // Rendered before the clock starts: the loop's first turn is not late for them. The
        // speaker plays in real time only: virtual time has no device clock to follow.
        if setup.config.sound.enabled, !virtual { setup.sounds = SpeakerSetup.Sounds(setup.config.sound) }
        let loop: EventLoop
        do { loop = try Run.eventLoop.get() } catch {
            printError("\(error)")
            throw ExitCode(ExitStatus.software)
        }
        if simulate {
            if virtual {
                try await serveSimulated(setup, waiter: VirtualTimeWaiter(clock: VirtualClock()), loop: loop, logger: logger)
            } else {
                try await serveSimulated(setup, waiter: EventLoopWaiter(clock: MonotonicClock(sleepingOn: loop), loop: loop), loop: loop, logger: logger)
            }
            return
        }
        let clock = MonotonicClock(sleepingOn: loop)
        let start = clock.now
        let devices: [LinuxI2CDevice]
        let inbox = ButtonInbox<MonotonicClock.Instant>()
        let hardware: Hardware
        do {
            devices = try setup.board.panels.map { try LinuxI2CDevice(bus: setup.board.i2cBus, address: $0.address) }
            hardware = try Hardware(board: setup.board, config: setup.config, inbox: inbox, loop: loop, logger: logger)
        } catch {
            printError("\(error)")
            throw ExitCode(ExitStatus.unavailable)
        }
        try await serve(setup, waiter: EventLoopWaiter(clock: clock, loop: loop), start: start, board: HardwareBoard.self, devices: devices, readBack: session.frames != nil,
                        hardware: hardware, inbox: inbox, loop: loop, logger: logger)
    }

    /// The board's panels as emulated chips below the real driver, buttons from `--events`,
    /// waited for by `waiter` (real or virtual time); everything else is `serve`, as on hardware.
    private func serveSimulated<Waiter: LoopWaiter>(_ setup: Setup, waiter: Waiter, loop: EventLoop, logger: Logger) async throws {
        try await serve(setup, waiter: waiter, start: waiter.clock.now, board: EmulatedBoard.self, devices: setup.board.emulatedChips(), readBack: true,
                        hardware: nil, inbox: ButtonInbox(), loop: loop, logger: logger)
    }

    /// The service: the clock assembled (`ClockAssembly`: display, restored session,
    /// controller, observers, render loop) and run with the buttons, the buzzer, the
    /// watchdog and the shutdown picture in one service group, on hardware, in simulation
    /// and in virtual time alike.
    private func serve<Waiter: LoopWaiter, Board: ConcreteBoard>(
        _ setup: Setup, waiter: Waiter, start: Waiter.WaitClock.Instant, board: Board.Type, devices: sending [Board.Device], readBack: Bool,
        hardware: Hardware?, inbox: ButtonInbox<Waiter.WaitClock.Instant>, loop: EventLoop, logger: Logger
    ) async throws {
        typealias C = Waiter.WaitClock
        let clock = waiter.clock
        let notifier = SystemdNotifier.fromEnvironment()
        let recorder = setup.recorder
        // The one worker thread for disk writes (the state file, the frames file) and the
        // program editor's requests, when there are any: the loop never waits for a disk.
        // Without it (pthread_create failed), they are done on the loop.
        var worker: BlockingWorker?
        if setup.stateDirectory != nil || recorder != nil || controlPath() != nil {
            do { worker = try BlockingWorker() } catch {
                logger.error("\(error); the state and frames files are written on the render loop")
            }
        }
        defer { worker?.stop() }
        if let worker { recorder?.write(on: worker) }
        if framesClock == .monotonic {
            // CLOCK_MONOTONIC at `start`: read next to the run's clock, so t = origin + (now - start).
            recorder?.countFrom(SystemReadings.clockReading(CLOCK_MONOTONIC) - start.duration(to: clock.now))
        }
        var members: [any DisplayObserver] = [EventLog(logger: logger), ReadyNotifier(notifier: notifier, logger: logger)]
        if let recorder { members.append(recorder) }
        if let buzzer = hardware?.buzzer { members.append(BuzzerObserver(play: buzzer.post)) }
        if let horn = hardware?.horn { members.append(BuzzerObserver(play: horn.post)) }
        if let lights = hardware?.lights { members.append(StackLightObserver(show: lights.post)) }
        let terminal = simulate && isatty(STDOUT_FILENO) == 1 ? TerminalPanel(drawing: true, animateBlink: !virtual) : nil
        if let terminal { members.append(terminal) }
        // Virtual time: CLOCK_REALTIME read once now and moved with the run's clock.
        let clocks = virtual ? SessionClocks.advancing(with: clock, from: start, realtimeAtStart: SystemReadings.clockReading(CLOCK_REALTIME))
                             : SessionClocks.system(clock)
        let control = try controlServer(config: setup.config, library: setup.library, settings: setup.settings, inbox: inbox, clock: clock, clocks: clocks,
                                        logger: logger)
        // Saved programs are checked and written on the worker, then join MODE's catalog in the loop.
        setup.library.attach(worker: worker) { programs in inbox.post(.catalog(Presets.cycle + programs, at: clock.now)) }
        // The setup page's settings are checked and written on the worker, then taken in the loop.
        setup.settings.attach(worker: worker, adjust: { [library = setup.library, fixedBrightness] in library.merged(fixedBrightness($0)) }) { settings in
            inbox.post(.settings(settings, at: clock.now))
        }
        if let notice = setup.notice { logger.warning("the card's settings were not taken: \(notice.message)") }
        let controlState = control.map { ControlStateObserver(hub: $0.hub, notice: setup.notice?.message) }
        if let controlState { members.append(controlState) }
        let heartbeat = LoopHeartbeat<C.Instant>()
        var events: [any LoopObserver<C.Instant>] = [heartbeat]
        let speaker = setup.sounds == nil ? nil : SpeakerSetup.start(setup.config.sound, logger: logger)
        defer { speaker?.stop() }
        // The voice's callouts, with `[voice] enabled`, through the speaker.
        let voice = speaker == nil ? nil : VoiceSetup.speakerCallouts(setup.config, logger: logger)
        defer { voice?.worker.stop() }
        if let speaker, let sounds = setup.sounds {
            events.append(SpeakerSetup.observer(for: speaker, sounds: sounds, callouts: voice?.callouts, clock: clock, start: start))
        }
        if let controlState { events.append(SessionSharing(state: controlState, clocks: clocks)) }
        let assembly = ClockAssembly(
            waiter: waiter, start: start, virtual: virtual, startWall: setup.startWall,
            config: setup.config, board: setup.board, program: setup.program, inbox: inbox, presses: setup.presses,
            stop: setup.until.map { .at(start.advanced(by: $0)) } ?? .never, observers: members, events: events,
            persistence: setup.stateDirectory.map {
                .init(directory: $0, programGiven: setup.programGiven, logger: logger, report: { controlState?.persistence($0) })
            },
            worker: worker, notice: setup.notice,
            reportStartupEvent: { logger.error("\($0)") })
        let assembled = await assembly.assemble(board, devices: devices, readBack: readBack)
        let (renderLoop, persistence) = (assembled.loop, assembled.persistence)
        let onShutdown = setup.config.onShutdown
        let render = RenderService(loop: renderLoop, controller: assembled.controller) { final in
            try? notifier.stopping(status: "stopping")
            let now = clock.now
            await persistence?.finish(final.session, at: now)
            if onShutdown == .blank {
                // Through the loop's display and observers: the frames file records it.
                await renderLoop.commit(final.face(at: now, wallTime: renderLoop.wallTime(now)).blanked, status: final.status(at: now))
            }
        }
        // Graceful shutdown runs in reverse order: watchdog, control socket and buttons (no new input), the
        // render loop (state saved, final picture), the stack light, horn and buzzer last (switched off).
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let buzzer = hardware?.buzzer { services.append(.init(service: buzzer)) }
        if let horn = hardware?.horn { services.append(.init(service: horn)) }
        if let lights = hardware?.lights { services.append(.init(service: lights)) }
        services.append(.init(service: render, successTerminationBehavior: .gracefullyShutdownGroup))
        if let buttons = hardware?.buttons { services.append(.init(service: buttons)) }
        if let control { services.append(.init(service: ControlService(server: control, loop: loop))) }
        // Last, so it is the first to stop: a caught signal ends it, and its end shuts the group down.
        services.append(.init(service: ShutdownSignals.Service(logger: logger, loop: loop), successTerminationBehavior: .gracefullyShutdownGroup))
        // Not in virtual time: its clock would let the feeder spin without ever sleeping.
        if !virtual, let timeout = SystemdNotifier.watchdogTimeoutFromEnvironment() {
            let feeder = WatchdogFeeder(clock: clock, interval: timeout / 2, heartbeat: heartbeat, notifier: notifier, logger: logger)
            services.append(.init(service: WatchdogService(feeder: feeder)))
        }
        var configuration = ServiceGroupConfiguration(services: services, logger: logger)
        // Signals come through ShutdownSignals (installed first thing), not the group's own
        // handlers, which would be installed only now and replace it.
        configuration.gracefulShutdownSignals = []
        logger.info("running \(assembled.controller.program.name) on board \(setup.board.name) (libgpiod API v\(GPIOLines.apiVersion))")
        var failed = false
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            logger.error("\(error)")
            failed = true
        }
        try await finishOutputs(terminal: terminal, recorder: recorder)
        logger.info("stopped")
        // A service that failed (e.g. the button reader could not start): exit non-zero so
        // systemd restarts the service (Restart=on-failure).
        if failed { throw ExitCode(ExitStatus.software) }
    }
}

extension Run {
    /// The clock's one event loop (`roundclock-loop`): started by the process entry, after
    /// the shutdown signals are blocked, before the command's task, which prefers it.
    static let eventLoop = Result { () throws(SystemError) in try EventLoop(name: LoopThread.name) }
}

/// `run --frames-clock`: what the frames file's `t` counts (docs/command-line.md).
enum FramesClock: String, ExpressibleByArgument, CaseIterable {
    /// Seconds since the start of the run.
    case start
    /// CLOCK_MONOTONIC in seconds (6 decimals): comparable across processes on one host.
    case monotonic
}
