import ArgumentParser
import Dispatch
import HT16K33
import LinuxHardware
import RoundClockConfig
import RoundClockCore
import RoundClockService
import Simulation
#if canImport(Glibc)
import Glibc
#endif

/// `roundclock run`: drives the real panels, buttons and buzzer of a board (or, with
/// `--simulate`, emulated chips and scripted buttons) until SIGTERM/SIGINT.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the clock on a board's panels, buttons and buzzer.",
        discussion: """
            Starts ready and waits for START. Runs until SIGTERM or SIGINT (or --until), then \
            silences the buzzer and leaves the panels showing the last frame.
            """)

    @Option(help: "Board file (boards/*.toml). Required unless --simulate.")
    var board: String?

    @OptionGroup var session: SessionOptions

    @Flag(help: "Emulated chips instead of /dev/i2c-N, buttons only from --events.")
    var simulate = false

    @Option(help: "Brightness 0-15 (HT16K33 dimming).")
    var brightness: Int = 15

    func validate() throws {
        _ = try checked()
    }

    struct Checked {
        var board: Board
        var program: Program
        var until: Duration?
        var presses: [ScriptedPress]
    }

    func checked() throws -> Checked {
        guard simulate || board != nil else { throw ValidationError("--board FILE is required (or --simulate)") }
        guard (0...15).contains(brightness) else { throw ValidationError("--brightness \(brightness): allowed are 0 to 15") }
        guard session.events == nil || simulate else { throw ValidationError("--events works only with --simulate; real buttons come from GPIO") }
        let (chosen, stop, presses) = try session.parsed()
        let loaded: Board
        do { loaded = try BoardFile.load(board) } catch { throw ValidationError(error.description) }
        return Checked(board: loaded, program: chosen, until: stop, presses: presses)
    }

    func run() async throws {
        let options = try checked()
        let clock = ContinuousClock()
        let start = clock.now
        if simulate {
            let chips = options.board.panels.map { EmulatedHT16K33(name: "sim-i2c-\(options.board.i2cBus)", address: $0.address) }
            try await drive(options, display: BoardDisplay(specs: options.board.panels, devices: chips, brightness: UInt8(brightness)),
                            clock: clock, start: start, hardware: nil)
            return
        }
        let devices: [LinuxI2CDevice]
        do {
            devices = try options.board.panels.map { try LinuxI2CDevice(bus: options.board.i2cBus, address: $0.address) }
        } catch {
            printError("\(error)")
            throw ExitCode(69) // EX_UNAVAILABLE
        }
        let inbox = ButtonInbox<ContinuousClock.Instant>()
        let hardware: Hardware
        do {
            hardware = try Hardware(board: options.board, inbox: inbox, clock: clock)
        } catch {
            printError("\(error)")
            throw ExitCode(69)
        }
        try await drive(options, display: BoardDisplay(specs: options.board.panels, devices: devices, brightness: UInt8(brightness),
                                                       readBack: session.frames != nil),
                        clock: clock, start: start, hardware: hardware, inbox: inbox)
    }

    /// Buttons and buzzer of a real board.
    struct Hardware {
        let reader: ButtonReader?
        let buzzer: Buzzer?

        init(board: Board, inbox: ButtonInbox<ContinuousClock.Instant>, clock: ContinuousClock) throws {
            if board.buttons.isEmpty {
                reader = nil
            } else {
                reader = try ButtonReader(buttons: board.buttons, activeLow: board.buttonsActiveLow,
                                          bias: GPIOBias(rawValue: board.buttonBias) ?? .pullUp) { button, pressed, timestamp in
                    // Kernel timestamps are CLOCK_MONOTONIC: place the edge on the loop's clock.
                    let age = monotonicNanoseconds() &- timestamp
                    let now = clock.now
                    let at = age < 10_000_000_000 ? now.advanced(by: .nanoseconds(-Int64(age))) : now
                    inbox.post(ButtonEvent(button, pressed ? .press : .release, at: at))
                }
            }
            buzzer = try board.buzzer.map { try Buzzer(line: $0, activeLow: board.buzzerActiveLow) }
        }
    }

    private func drive<Device: I2CDevice>(
        _ options: Checked, display: BoardDisplay<Device>, clock: ContinuousClock, start: ContinuousClock.Instant,
        hardware: Hardware?, inbox: ButtonInbox<ContinuousClock.Instant> = ButtonInbox()
    ) async throws {
        for event in await display.start() { printError("\(event)") }
        let recorder = try session.frames.map { path throws(FileError) in try FramesRecorder(path: path, decimals: 6) }
        var members: [any LoopObserver] = [EventLog()]
        if let recorder { members.append(recorder) }
        if let buzzer = hardware?.buzzer {
            members.append(BuzzerObserver<Buzzer>(play: { signal in Task { await buzzer.play(signal) } }))
        }
        if simulate, isatty(STDOUT_FILENO) == 1 { members.append(TerminalPanel(drawing: true)) }
        let controller = Controller<ContinuousClock.Instant>(program: options.program, hasModeButton: options.board.hasModeButton)
        let loop = RenderLoop(
            clock: clock, start: start, inbox: inbox, display: display, observer: Observers(members: members),
            wallTime: { _ in SystemWallClock.now() },
            stop: options.until.map { .at(start.advanced(by: $0)) } ?? .never,
            script: options.presses.flatMap { $0.edges(from: start) })
        try hardware?.reader?.start()
        printError("running \(options.program.name) on board \(options.board.name) (libgpiod API v\(GPIOLines.apiVersion))")
        let task = Task { await loop.run(controller) }
        let stopSignals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        _ = await task.value
        stopSignals.forEach { $0.cancel() }
        hardware?.reader?.stop()
        await hardware?.buzzer?.silence()
        try recorder?.close()
        printError("stopped")
    }
}
