import Logging
import Platform
import RoundClockConfig
import RoundClockCore
import RoundClockService
import Simulation
import Voice

/// A checked `simulate` invocation, runnable on any clock.
struct SimulationPlan {
    var program: Program
    var board: Board
    var stopAfter: Duration?
    var presses: [ScriptedPress]
    var startWall: WallTime?
    var autostart: Bool
    var virtual: Bool
    var framesPath: String?
    /// `--sound-file`, `--sound-rate` and the cues of `--config`'s `[sound]`.
    var sound: SoundFilePlan?
    /// `--sound`: the `[sound]` settings whose device and cues the speaker plays.
    var speaker: SoundSettings?
    /// `--config`'s `[voice]`, when enabled: its callouts in the track or through the speaker.
    var voice: (settings: VoiceSettings, voice: Voice)?
    var drawOnTerminal: Bool
    var cadence: Cadence = .seconds

    func run<Waiter: LoopWaiter>(waiter: Waiter, decimals: Int) async throws -> SimulationSummary {
        typealias C = Waiter.WaitClock
        let clock = waiter.clock
        let recorder = try framesPath.map { path throws(SystemError) in try FramesRecorder(path: path, decimals: decimals) }
        let counter = FrameCounter()
        let terminal = TerminalPanel(drawing: drawOnTerminal, animateBlink: !virtual)
        var members: [any DisplayObserver] = [counter, terminal]
        if let recorder { members.append(recorder) }
        let soundTrack = sound.map { SoundTrackRecorder(path: $0.path, rate: $0.rate, cues: $0.settings.cues) }
        if let soundTrack { members.append(soundTrack) }
        // No config file: the built-in settings, with the cadence of `--cadence`.
        var config = Config.defaults()
        config.cadence = cadence
        let sounds = self.speaker.map(SpeakerSetup.Sounds.init)
        let speaker = self.speaker.flatMap { SpeakerSetup.start($0, logger: Logger(label: "roundclock")) }
        defer { speaker?.stop() }
        var spoken: (callouts: CalloutSounds, worker: BlockingWorker)?
        if let settings = self.speaker, speaker != nil, let voice {
            spoken = try VoiceSetup.speakerCallouts(voice.voice, volume: voice.settings.volume, rate: settings.rate) { error in
                printError("voice: \(error)")
            }
        }
        defer { spoken?.worker.stop() }
        // The clock starts once the sounds and the voice are ready: its first turn is not late.
        let start = clock.now
        var events: [any LoopObserver<C.Instant>] = []
        if let soundTrack, let sound, let voice {
            let callouts = VoiceSetup.trackCallouts(voice.voice, volume: voice.settings.volume, rate: sound.rate)
            events.append(soundTrack.callouts(callouts, start: start))
        }
        if let speaker, let sounds {
            events.append(SpeakerSetup.observer(for: speaker, sounds: sounds, callouts: spoken?.callouts, clock: clock, start: start))
        }
        let assembly = ClockAssembly(
            waiter: waiter, start: start, virtual: virtual, startWall: startWall, config: config, board: board, program: program,
            presses: presses, stop: stop(from: start), observers: members, events: events, autostart: autostart,
            reportStartupEvent: { printError("\($0)") })
        // The emulated chips sit below the real driver: the simulator runs the real encoding path.
        let assembled = await assembly.assemble(EmulatedBoard.self, devices: board.emulatedChips(), readBack: true)
        let display = assembled.display
        let startup = await display.inspect { $0.reduce(Traffic()) { $0 + $1.traffic } }
        let final = await assembled.loop.run(assembled.controller, pending: assembled.pending)
        try await finishOutputs(terminal: terminal, recorder: recorder)
        try soundTrack?.finish(at: start.duration(to: clock.now))
        let total = await display.inspect { $0.reduce(Traffic()) { $0 + $1.traffic } }
        return SimulationSummary(program: program.name, ran: start.duration(to: clock.now), decimals: decimals,
                                 frames: counter.frames, timeChanges: counter.timeChanges, signals: counter.signals,
                                 status: final.status(at: clock.now), traffic: total - startup, startup: startup)
    }

    func stop<Instant>(from start: Instant) -> StopCondition<Instant> where Instant: InstantProtocol & Sendable, Instant.Duration == Duration {
        guard let stopAfter else { return .afterFinish(.seconds(1)) }
        return .at(start.advanced(by: stopAfter))
    }
}

/// The sound track to write: where, at which rate, and the `[sound]` settings whose cues
/// say what each signal sounds like.
struct SoundFilePlan {
    var path: String
    var rate: Int
    var settings: SoundSettings
}

struct SimulationSummary: CustomStringConvertible {
    var program: String
    var ran: Duration
    var decimals: Int
    var frames: Int
    var timeChanges: Int
    var signals: Int
    var status: Status
    /// I2C traffic after start-up, all panels (reads of the power-loss checks included).
    var traffic: Traffic
    var startup: Traffic

    var description: String {
        // Per displayed second (one time change each) while the clock counts; a run in which
        // the time hardly changed (ready, paused) is given per simulated second instead.
        let counted = timeChanges >= 2
        let seconds = counted ? Double(timeChanges) : Double(ran / .seconds(1))
        let per = { (x: Int) in seconds > 0 ? Double(x) / seconds : 0 }
        let rate = counted ? "per displayed second (\(timeChanges) time changes)"
            : "per simulated second (\(timeChanges) time change\(timeChanges == 1 ? "" : "s"))"
        return """
            simulated \(program) for \(ran.formattedSeconds(decimals: decimals)) s: \(frames) panel changes, \(signals) signals, ended \(status.state)
            I2C: start-up \(startup.bytes) bytes in \(startup.transactions) transactions; then \(traffic.bytes) bytes in \(traffic.transactions) transactions \
            = \(fixed(per(traffic.bytes))) bytes and \(fixed(per(traffic.transactions))) transactions \(rate), \
            power-loss checks included: \(traffic.readBytes) reads (\(2 * traffic.readBytes) bytes)
            """
    }

    private func fixed(_ x: Double) -> String {
        let hundredths = Int((x * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}

extension Board {
    /// One emulated HT16K33 per panel, at the panel's address on the board's bus: what
    /// `simulate` and `run --simulate` put below the real driver.
    func emulatedChips() -> [EmulatedHT16K33] {
        panels.map { EmulatedHT16K33(name: "sim-i2c-\(i2cBus)", address: $0.address) }
    }
}
