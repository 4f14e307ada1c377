import Platform
import RoundClockCore

/// A buzzer or relay (the horn's) on a GPIO output line, playing one pattern per signal. Patterns run
/// in their own task, so a signal never delays a display update; a new signal cuts the
/// one still playing short. Whatever ends a pattern leaves the line off: its last step,
/// a newer signal (a silent one, configured 0 ms, too) or `silence()`. Steps are timed
/// on absolute deadlines from the pattern's start, on the injected clock.
public actor Buzzer {
    /// On/off durations: on, off, on, off, ... (the line ends off).
    public typealias Pattern = [Duration]
    /// Told about a failed write to the line: once, then again only after a write worked.
    public typealias FailureHandler = @Sendable (SystemError) -> Void

    private let line: any OutputLine
    private let clock: any Clock<Duration>
    /// Where the pattern tasks prefer to run; nil: Swift's global executor.
    private let executor: (any TaskExecutor)?
    private let patterns: [Signal: Pattern]
    private let onFailure: FailureHandler
    private var playing: Task<Void, Never>?
    /// The pattern task cut short last, so `silence()` can wait until it has ended too.
    private var cut: Task<Void, Never>?
    /// Bumped whenever a pattern ends early: a superseded pattern task never drives the
    /// line again, so it cannot switch off a newer pattern's beep.
    private var generation = 0
    /// The level last written successfully (the line is requested off).
    private var level = false
    private var failing = false

    /// Requests `spec` (`GPIO18`, `gpiochip0:18`) as an output, driven off, under the name
    /// `consumer` (`roundclock-horn` for the horn relay: the kernel's list of lines shows it).
    /// With `loop`, the patterns run on that event loop: their steps wait on its timers and
    /// their tasks prefer it.
    public init(line spec: String, activeLow: Bool, patterns: [Signal: Pattern] = Signal.defaultBuzzerPatterns,
                consumer: String = "roundclock-buzzer",
                loop: EventLoop? = nil, onFailure: @escaping FailureHandler = { _ in }) throws(SystemError) {
        let requested = try RequestedLine.output(try GPIOLines.locate(spec), consumer: consumer, activeLow: activeLow, initial: false)
        self.init(line: requested, patterns: patterns, clock: MonotonicClock(sleepingOn: loop), executor: loop, onFailure: onFailure)
    }

    init(line: sending any OutputLine, patterns: [Signal: Pattern], clock: any Clock<Duration>,
         executor: (any TaskExecutor)? = nil, onFailure: @escaping FailureHandler) {
        self.line = line
        self.patterns = patterns
        self.clock = clock
        self.executor = executor
        self.onFailure = onFailure
    }

    /// Starts `signal`'s pattern after switching off the one still playing; a signal
    /// without a pattern only switches it off.
    public func play(_ signal: Signal) {
        cutShort()
        guard let pattern = patterns[signal], !pattern.isEmpty else { return }
        let mine = generation
        let clock = self.clock
        playing = Task(executorPreference: executor) { await self.run(pattern, generation: mine, on: clock) }
    }

    /// Off now (shutdown); returns once the playing pattern's task and the one cut short
    /// last have ended. (An earlier cut task cannot drive the line: each checks its
    /// generation before every write.)
    public func silence() async {
        cutShort()
        let ended = cut
        cut = nil
        await ended?.value
    }

    private func cutShort() {
        generation &+= 1
        if let playing {
            playing.cancel()
            cut = playing
        }
        playing = nil
        drive(false)
    }

    private func run<C: Clock>(_ pattern: Pattern, generation mine: Int, on clock: C) async where C.Duration == Duration {
        var deadline = clock.now
        for (index, duration) in pattern.enumerated() {
            guard generation == mine else { return }
            drive(index % 2 == 0)
            deadline = deadline.advanced(by: duration)
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
        }
        guard generation == mine else { return }
        drive(false)
        playing = nil
    }

    /// Writes `on` unless the line already is there; after a failed write, always writes.
    private func drive(_ on: Bool) {
        guard on != level || failing else { return }
        do {
            try line.set(on)
            level = on
            failing = false
        } catch {
            if !failing { onFailure(error) }
            failing = true
        }
    }
}
