import ArgumentParser
import HT16K33
import LinuxHardware
import Logging
import RoundClockConfig
import RoundClockCore
import RoundClockService
import ServiceLifecycle
import Simulation
#if canImport(Glibc)
import Glibc
#endif

/// `roundclock run`: the clock as a service. Reads the config, restores the saved session,
/// drives the board's panels, buttons and buzzer (or, with `--simulate`, emulated chips and
/// scripted buttons) until SIGTERM/SIGINT, then saves the state, leaves the panels showing
/// the configured picture and silences the buzzer.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the clock as a service on a board's panels, buttons and buzzer.",
        discussion: """
            Reads --config (default \(Config.defaultPath)); --board and --program override it. \
            A missing default config means built-in defaults. A bad config exits 78 (EX_CONFIG). \
            The session is saved on every command and restored on start.
            """)

    @Option(help: "Configuration file.")
    var config: String?

    @Option(help: "Board file (boards/*.toml), overriding the config's board.")
    var board: String?

    @OptionGroup var session: SessionOptions

    @Flag(help: "Emulated chips instead of /dev/i2c-N; buttons only from --events.")
    var simulate = false

    @Option(help: "Where the session state is kept (default: $STATE_DIRECTORY or /var/lib/roundclock; with --simulate: not kept unless given).")
    var stateDir: String?

    @Option(help: "Fixed brightness 0-15, overriding the config's day/night schedule.")
    var brightness: Int?

    /// Everything checked; exits 78 on a bad config, 64 on bad options.
    struct Setup {
        var config: Config
        var board: Board
        var program: Program
        var programGiven: Bool
        var until: Duration?
        var presses: [ScriptedPress]
    }

    func setup() throws -> Setup {
        guard session.events == nil || simulate else { throw ValidationError("--events works only with --simulate; real buttons come from GPIO") }
        if let brightness, !(0...15).contains(brightness) { throw ValidationError("--brightness \(brightness): allowed are 0 to 15") }
        let (_, until, presses) = try session.parsed()
        do {
            var loaded: Config
            if let config {
                loaded = try Config.load(config)
            } else if access(Config.defaultPath, F_OK) == 0 {
                loaded = try Config.load(Config.defaultPath)
            } else {
                guard simulate || board != nil else {
                    throw ValidationError("no \(Config.defaultPath): give --config FILE or --board FILE (or --simulate)")
                }
                loaded = Config.defaults()
            }
            if let brightness { loaded.brightness = BrightnessSchedule(day: UInt8(brightness), night: UInt8(brightness), nightFrom: 0, dayFrom: 60) }
            let chosenBoard = try board.map { try BoardFile.load($0) } ?? loaded.loadBoard()
            let programGiven = CommandLine.arguments.contains { $0 == "--program" || $0.hasPrefix("--program=") }
            let program: Program
            if programGiven {
                guard let p = loaded.resolveProgram(session.program) else {
                    do { _ = try ProgramSpec.parse(session.program) } catch { throw ValidationError(error.description) }
                    throw ValidationError("unknown program \(session.program)")
                }
                program = p
            } else {
                program = loaded.program
            }
            return Setup(config: loaded, board: chosenBoard, program: program, programGiven: programGiven, until: until, presses: presses)
        } catch let error as ConfigError {
            printError(error.description)
            throw ExitCode(ConfigError.exitCode)
        }
    }

    func run() async throws {
        JournalLogHandler.bootstrap()
        let logger = Logger(label: "roundclock")
        let setup = try setup()
        let clock = ContinuousClock()
        let start = clock.now
        if simulate {
            let chips = setup.board.panels.map { EmulatedHT16K33(name: "sim-i2c-\(setup.board.i2cBus)", address: $0.address) }
            let display = BoardDisplay(specs: setup.board.panels, devices: chips, brightness: setup.config.brightness.level(at: SystemWallClock.now()))
            try await serve(setup, display: display, clock: clock, start: start, hardware: nil, inbox: ButtonInbox(), logger: logger)
            return
        }
        let devices: [LinuxI2CDevice]
        let inbox = ButtonInbox<ContinuousClock.Instant>()
        let hardware: Hardware
        do {
            devices = try setup.board.panels.map { try LinuxI2CDevice(bus: setup.board.i2cBus, address: $0.address) }
            hardware = try Hardware(board: setup.board, config: setup.config, inbox: inbox, clock: clock)
        } catch {
            printError("\(error)")
            throw ExitCode(69) // EX_UNAVAILABLE
        }
        let display = BoardDisplay(specs: setup.board.panels, devices: devices,
                                   brightness: setup.config.brightness.level(at: SystemWallClock.now()),
                                   readBack: session.frames != nil)
        try await serve(setup, display: display, clock: clock, start: start, hardware: hardware, inbox: inbox, logger: logger)
    }

    /// Buttons and buzzer of a real board.
    struct Hardware: Sendable {
        let reader: ButtonReader?
        let buzzer: Buzzer?

        init(board: Board, config: Config, inbox: ButtonInbox<ContinuousClock.Instant>, clock: ContinuousClock) throws {
            if board.buttons.isEmpty {
                reader = nil
            } else {
                reader = try ButtonReader(buttons: board.buttons, activeLow: board.buttonsActiveLow,
                                          bias: GPIOBias(rawValue: board.buttonBias) ?? .pullUp,
                                          lockout: config.buttons.debounce) { button, pressed, timestamp in
                    // Kernel timestamps are CLOCK_MONOTONIC: place the edge on the loop's clock.
                    let at = continuousInstant(ofMonotonicNanoseconds: timestamp, on: clock)
                    inbox.post(ButtonEvent(button, pressed ? .press : .release, at: at))
                }
            }
            var patterns: [Signal: Buzzer.Pattern] = [:]
            for signal in Signal.allCases { patterns[signal] = config.buzzer[signal] }
            buzzer = try board.buzzer.map { try Buzzer(line: $0, activeLow: board.buzzerActiveLow, patterns: patterns) }
        }
    }

    private func serve<Device: I2CDevice>(
        _ setup: Setup, display: BoardDisplay<Device>, clock: ContinuousClock, start: ContinuousClock.Instant,
        hardware: Hardware?, inbox: ButtonInbox<ContinuousClock.Instant>, logger: Logger
    ) async throws {
        for event in await display.start() { logger.error("\(event)") }
        let notifier = SystemdNotifier.fromEnvironment()

        // The session: restored from the state directory, or ready with the program.
        let stateDirectory = stateDir ?? (simulate ? nil : StateStore.defaultDirectory())
        let saver: StateSaver?
        if let stateDirectory {
            do { saver = StateSaver(store: StateStore(directory: stateDirectory), readings: try SystemReadings.system(), logger: logger) } catch {
                logger.error("state: \(error); the session will not be kept across restarts")
                saver = nil
            }
        } else {
            saver = nil
        }
        var controller = Controller<ContinuousClock.Instant>(
            program: setup.program, catalog: setup.config.catalog, hasModeButton: setup.board.hasModeButton,
            longPress: setup.config.buttons.longPress, brightness: setup.config.brightness,
            idleClockAfter: setup.config.idleClockAfter)
        if let saver {
            // `now` is read inside restore, next to its CLOCK_BOOTTIME reading: `start` lies
            // before the devices were opened and initialised (tens of ms on a slow machine),
            // and would put the restored anchor, and every later change, that much early.
            let restored = saver.restore(now: clock.now, fallback: setup.program, resumeAfterReboot: setup.config.resumeAfterReboot,
                                         resolve: setup.config.resolveProgram)
            if !setup.programGiven || restored.session.program.name == setup.program.name {
                controller.restore(restored.session, at: start)
            }
        }

        let recorder = try session.frames.map { path throws(FileError) in try FramesRecorder(path: path, decimals: 6) }
        var members: [any LoopObserver] = [EventLog(logger: logger), ReadyNotifier(notifier: notifier, logger: logger)]
        if let recorder { members.append(recorder) }
        if let buzzer = hardware?.buzzer {
            members.append(BuzzerObserver(play: { signal in Task { await buzzer.play(signal) } }))
        }
        if simulate, isatty(STDOUT_FILENO) == 1 { members.append(TerminalPanel(drawing: true)) }
        let heartbeat = LoopHeartbeat<ContinuousClock.Instant>()
        let stop: StopCondition<ContinuousClock.Instant> = setup.until.map { .at(start.advanced(by: $0)) } ?? .never
        var saveOnChange: (@Sendable (Session<ContinuousClock.Instant>, ContinuousClock.Instant) -> Void)?
        // The anchor is saved by its distance from `at`, measured against CLOCK_BOOTTIME and
        // CLOCK_REALTIME readings taken in save: read the clock there too, not the turn's
        // `now`, which lies before the display commit (the saved anchor would be late by it).
        if let saver { saveOnChange = { session, _ in _ = saver.save(session, at: clock.now) } }
        let loop = RenderLoop<ContinuousClock>(
            clock: clock, start: start, inbox: inbox, display: display, observer: Observers(members: members),
            wallTime: { _ in SystemWallClock.now() },
            stop: stop,
            script: setup.presses.flatMap { $0.edges(from: start) },
            heartbeat: heartbeat,
            sessionChanged: saveOnChange)
        let onShutdown = setup.config.onShutdown
        let panels: any FaceDisplay = display // existential: the closure captures no generic metatype
        let render = RenderService<ContinuousClock>(loop: loop, controller: controller) { final in
            try? notifier.stopping(status: "stopping")
            _ = saver?.save(final.session, at: clock.now)
            await hardware?.buzzer?.silence()
            if onShutdown == .blank {
                var blank = final.face(at: clock.now, wallTime: SystemWallClock.now())
                blank.time = PanelText("    ")
                blank.round = PanelText("    ")
                blank.phase = PanelText("    ")
                _ = await panels.show(blank)
            }
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: render, successTerminationBehavior: .gracefullyShutdownGroup)
        ]
        if let timeout = SystemdNotifier.watchdogTimeoutFromEnvironment() {
            let feeder = WatchdogFeeder(clock: clock, interval: timeout / 2, heartbeat: heartbeat, notifier: notifier, logger: logger)
            services.append(.init(service: WatchdogService(feeder: feeder)))
        }
        var configuration = ServiceGroupConfiguration(services: services, logger: logger)
        configuration.gracefulShutdownSignals = [.sigterm, .sigint]
        try hardware?.reader?.start()
        logger.info("running \(controller.program.name) on board \(setup.board.name) (libgpiod API v\(GPIOLines.apiVersion))")
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            logger.error("\(error)")
        }
        hardware?.reader?.stop()
        try recorder?.close()
        logger.info("stopped")
    }
}

/// Sends buzzer signals to a buzzer without waiting for the pattern to play.
struct BuzzerObserver: LoopObserver {
    let play: @Sendable (Signal) -> Void
    func committed(_ face: Face, panels: [PanelReadout], status: Status, at t: Duration) {}
    func occurred(_ occurrence: LoopOccurrence, at t: Duration) {
        if case .signal(let signal) = occurrence { play(signal) }
    }
}
