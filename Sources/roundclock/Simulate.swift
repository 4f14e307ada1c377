import ArgumentParser
import CommandLineSupport
import Platform
import RoundClockConfig
import RoundClockCore
import RoundClockService
import Voice
#if canImport(Glibc)
import Glibc
#endif

/// `roundclock simulate`: runs a program on the simulated display, in real or virtual time.
struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a program on the simulated display, in real or virtual time.",
        discussion: """
            The session starts at t = 0 (use --ready to wait for a START press instead). \
            Without --until it ends 1 s after the session finishes; open-ended programs \
            (stopwatch, clock) need --until.
            """)

    @OptionGroup var session: SessionOptions

    @Flag(help: "Virtual time: jump straight to each next deadline (a 47-minute session takes well under a second).")
    var virtual = false

    @Option(help: "Board file naming the panels (default: the built-in boards/simulator.toml).")
    var board: String?

    @Flag(help: "Do not draw the panels on the terminal.")
    var noTty = false

    @Option(help: "Time resolution on the panel: seconds (default), live (hundredths below one minute) or minutes (seconds hidden).")
    var cadence: Cadence = .seconds

    @Flag(help: "Start in the ready state, waiting for a START press.")
    var ready = false

    @Option(help: "Wall-clock time at the start in virtual time, HH:MM or HH:MM:SS (clock mode); default: now.")
    var wallTime: String?

    @Option(help: "With --virtual: write the session's sound track to this WAV file (16-bit mono), each signal's sound at its instant.")
    var soundFile: String?

    @Option(help: "The sound file's sample rate in Hz, 8000 to 192000 (default 48000).")
    var soundRate: Int?

    @Flag(help: "Play each signal's sound through the speaker on its instant: ALSA's default device, or the [sound] device of --config. Real time only.")
    var sound = false

    @Option(help: "With --sound-file or --sound: a configuration file whose [sound] tables say what each signal sounds like and whose [voice] says the callouts (exit 78 if it is bad); only its [sound] and [voice] are used.")
    var config: String?

    func validate() throws {
        _ = try parsed(loadingConfig: false)
    }

    /// Everything the options say, checked; the config file is read only with `loadingConfig`
    /// (its WAV files can be megabytes: read once, in `run`).
    func parsed(loadingConfig: Bool = true) throws -> SimulationPlan {
        let (chosen, stopAfter, presses) = try session.parsed()
        if stopAfter == nil, chosen.total == nil {
            throw ValidationError("--until is required for the open-ended program '\(chosen.name)'")
        }
        let startWall = try wallTime.map(SimulatedWallTime.parse)
        if soundFile != nil, !virtual { throw ValidationError("--sound-file needs --virtual: the track is laid out in virtual time") }
        if soundRate != nil, soundFile == nil { throw ValidationError("--sound-rate needs --sound-file: it is the sound file's sample rate") }
        let soundRate = self.soundRate ?? 48_000
        guard (8_000...192_000).contains(soundRate) else { throw ValidationError("--sound-rate must be 8000 to 192000 Hz, not \(soundRate)") }
        if sound, virtual { throw ValidationError("--sound plays in real time; for virtual time write the track with --sound-file") }
        if config != nil, soundFile == nil, !sound {
            throw ValidationError("--config needs --sound-file or --sound: simulate uses only the config's [sound] and [voice]")
        }
        var settings = SoundSettings()
        var voice: (settings: VoiceSettings, voice: Voice)?
        if loadingConfig, let config {
            do {
                let loaded = try Config.load(config)
                settings = loaded.sound
                if loaded.voice.enabled { voice = (loaded.voice, try VoiceSetup.voice(loaded.voice, file: loaded.file)) }
            } catch {
                printError(error.description)
                throw ExitCode(ConfigError.exitCode)
            }
        }
        let chosenBoard: Board
        do { chosenBoard = try BoardFile.load(board) } catch { throw ValidationError(error.description) }
        return SimulationPlan(program: chosen, board: chosenBoard, stopAfter: stopAfter, presses: presses, startWall: startWall,
                              autostart: !ready, virtual: virtual, framesPath: session.frames,
                              sound: soundFile.map { SoundFilePlan(path: $0, rate: soundRate, settings: settings) },
                              speaker: sound ? settings : nil, voice: voice,
                              drawOnTerminal: !noTty && isatty(STDOUT_FILENO) == 1, cadence: cadence)
    }

    func run() async throws {
        let plan = try parsed()
        // Real time: the render loop on an event loop of its own, as `run`'s.
        var loop: EventLoop?
        if !plan.virtual {
            do { loop = try EventLoop(name: LoopThread.name) } catch {
                printError("\(error)")
                throw ExitCode(ExitStatus.software)
            }
        }
        defer { loop?.finish() }
        let summary: SimulationSummary
        do {
            if let loop {
                summary = try await plan.run(waiter: EventLoopWaiter(clock: MonotonicClock(), loop: loop), decimals: 6)
            } else {
                summary = try await plan.run(waiter: VirtualTimeWaiter(clock: VirtualClock()), decimals: 3)
            }
        } catch let error as SystemError {
            printError(error.description)
            throw ExitCode(error.exitCode) // 73 EX_CANTCREAT, 74 EX_IOERR
        }
        print(summary.description)
    }
}


/// `--cadence live|seconds|minutes`.
extension Cadence: ExpressibleByArgument {}
