import ArgumentParser
import Logging
import CommandLineSupport
import Platform
import RoundClockConfig
import RoundClockCore
import RoundClockService
#if canImport(Glibc)
import Glibc
#endif

extension Run {
    /// Everything checked; exits 78 on a bad config, 64 on bad options, 73 when the frames
    /// file cannot be created or written. A state directory that cannot be written stops
    /// nothing: the clock runs without keeping the session (`StatePersistence`).
    struct Setup {
        var config: Config
        var board: Board
        var program: Program
        var programGiven: Bool
        /// When the run ends, counted from its start; `nil`: at SIGTERM/SIGINT. Always set in virtual time.
        var until: Duration?
        var presses: [ScriptedPress]
        /// `--wall-time`: the local wall time at the start of a simulated run.
        var startWall: WallTime?
        /// Where the session is kept, `nil`: not kept.
        var stateDirectory: String?
        /// `--frames`, opened (and truncated) before any device is touched.
        var recorder: FramesRecorder?
        /// The speaker's sounds, rendered before the clock starts; nil: no speaker.
        var sounds: SpeakerSetup.Sounds?
        /// The programs saved from the editor (in `stateDirectory`), already among `config`'s.
        var library: ProgramLibrary
        /// The setup page's settings (in `stateDirectory`), already laid over `config`.
        var settings: SettingsStore
        /// The card's refused `roundclock.toml` (`--card-error`), shown on the panels and the page.
        var notice: SetupNotice?
    }

    func setup() throws -> Setup {
        guard session.events == nil || simulate else { throw ValidationError("--events works only with --simulate; real buttons come from GPIO") }
        guard !virtual || simulate else { throw ValidationError("--virtual works only with --simulate; real panels and buttons run in real time") }
        guard framesClock == .start || !virtual else {
            throw ValidationError("--frames-clock monotonic works only in real time; --virtual has no CLOCK_MONOTONIC to count")
        }
        guard framesClock == .start || session.frames != nil else { throw ValidationError("--frames-clock needs --frames") }
        guard wallTime == nil || simulate else { throw ValidationError("--wall-time works only with --simulate; on real hardware the wall clock is the system's") }
        guard !virtual || session.until != nil || session.events != nil else {
            throw ValidationError("--virtual needs --until or --events: a run in virtual time must have an end")
        }
        let (until, presses) = try session.parsedTimes()
        let startWall = try wallTime.map(SimulatedWallTime.parse)
        do {
            let configPath = config ?? (access(Config.defaultPath, F_OK) == 0 ? Config.defaultPath : nil)
            guard configPath != nil || simulate || board != nil else {
                throw ValidationError("no \(Config.defaultPath): give --config FILE or --board FILE (or --simulate)")
            }
            // The editor's saved programs, next to the config's: `--program`, MODE and the state
            // file's program name reach them as they do `[programs]`. The setup page's settings
            // cannot change `[programs]`, so the file alone names the ones that shadow saved ones.
            let fileAlone = try configPath.map { path throws(ConfigError) in try Config.load(path) } ?? Config.defaults()
            let library = ProgramLibrary(directory: stateDirectory(), configured: fileAlone.programs, logger: Logger(label: "roundclock"))
            // The setup page's settings, laid over the file (or the built-in defaults).
            let settings = SettingsStore(directory: stateDirectory(), configPath: configPath, logger: Logger(label: "roundclock"),
                                         adjust: fixedBrightness, savedProgram: library.savedProgram)
            let loaded = library.merged(try settings.startingConfig())
            let chosenBoard = try board.map { try BoardFile.load($0) } ?? loaded.loadBoard()
            let programGiven = CommandLine.arguments.contains { $0 == "--program" || $0.hasPrefix("--program=") }
            let program: Program
            if programGiven {
                guard let p = loaded.resolveProgram(session.program) else {
                    let own = loaded.programs.map(\.name)
                    let also = own.isEmpty ? "" : "; or one of \(loaded.file)'s programs: \(own.joined(separator: ", "))"
                    do { _ = try ProgramSpec.parse(session.program, alsoNamed: own) } catch {
                        var error = error
                        error.expected += also
                        throw ValidationError(error.description)
                    }
                    throw ValidationError("unknown program \(session.program)")
                }
                program = p
            } else {
                program = loaded.program
            }
            let end = try until ?? virtualEnd(program: program, presses: presses)
            return Setup(config: loaded, board: chosenBoard, program: program, programGiven: programGiven,
                         until: end, presses: presses, startWall: startWall,
                         stateDirectory: stateDirectory(),
                         recorder: try session.frames.map { path throws(SystemError) in try FramesRecorder(path: path, decimals: virtual ? 3 : 6) },
                         library: library, settings: settings, notice: cardNotice())
        } catch let error as ConfigError {
            printError(error.description)
            throw ExitCode(ConfigError.exitCode)
        } catch let error as SystemError {
            printError(error.description)
            throw ExitCode(error.exitCode)
        }
    }

    /// `--brightness`: a fixed level over whatever the config and the setup page say.
    func fixedBrightness(_ config: Config) -> Config {
        guard let brightness else { return config }
        var fixed = config
        fixed.brightness = BrightnessSchedule(day: UInt8(brightness), night: UInt8(brightness), nightFrom: 0, dayFrom: 60)
        return fixed
    }

    /// `--state-dir` (default `$STATE_DIRECTORY` or /var/lib/roundclock; with `--simulate`
    /// none unless given). It is created and checked when the clock is assembled; one that
    /// cannot be written is an error line, and the clock runs without keeping the session.
    private func stateDirectory() -> String? {
        guard let directory = stateDir ?? (simulate ? nil : StateStore.defaultDirectory()) else { return nil }
        return StateStore(directory: directory).directory
    }

    /// The first line of `--card-error` (default /run/roundclock-card/error outside a
    /// simulation), which `apply-card` writes when it refuses the card's file; `nil` when
    /// there is none or it is empty.
    private func cardNotice() -> SetupNotice? {
        guard let path = cardError ?? (simulate ? nil : ApplyCard.defaultErrorFile),
              let text = try? SmallFiles.readText(path, limit: 4096) else { return nil }
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        return line.trimmed.isEmpty ? nil : SetupNotice(message: line)
    }

    /// Without `--until`, a virtual run ends the program's length plus 1 s after the last
    /// scripted press: a session started by that press ends 1 s after it finishes, as in
    /// `simulate`. Open-ended programs need `--until`. `nil` in real time.
    private func virtualEnd(program: Program, presses: [ScriptedPress]) throws -> Duration? {
        guard virtual else { return nil }
        guard let total = program.total else {
            throw ValidationError("--until is required with --virtual for the open-ended program '\(program.name)'")
        }
        return (presses.map(\.at).max() ?? .zero) + total + .seconds(1)
    }
}
