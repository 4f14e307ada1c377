import Platform
import RoundClockCore

/// A stack light's lamps on GPIO output lines, one relay each: shows a `StackLight`, writing
/// a line only when its level changes; a blinking lamp toggles in its own task, on absolute
/// deadlines of the injected clock. `release()` leaves every lamp off.
public actor StackLights {
    /// Told about a failed write to a lamp's line: once, then again only after a write to
    /// that line worked.
    public typealias FailureHandler = @Sendable (SystemError) -> Void

    private let lines: [Lamp: any OutputLine]
    private let clock: any Clock<Duration>
    /// Where the blink task prefers to run; nil: Swift's global executor.
    private let executor: (any TaskExecutor)?
    private let onFailure: FailureHandler
    private var shown = StackLight.off
    /// The level last written successfully to each line (each is requested off).
    private var levels: [Lamp: Bool] = [:]
    private var failing: Set<Lamp> = []
    private var blinker: Task<Void, Never>?
    /// Bumped whenever the light changes: a blink task of an older light never writes again.
    private var generation = 0

    /// Requests each lamp's line (`GPIO23`, `gpiochip0:23`) as an output, driven off, as
    /// `roundclock-light-<lamp>`. With `loop`, the blink waits on its timers and its task
    /// prefers it. A line that cannot be requested throws, naming the line and errno; the
    /// lines requested before it are released.
    public init(lines specs: [Lamp: String], activeLow: Bool, loop: EventLoop? = nil,
                onFailure: @escaping FailureHandler = { _ in }) throws(SystemError) {
        var requested: [Lamp: any OutputLine] = [:]
        for lamp in Lamp.allCases {
            guard let spec = specs[lamp] else { continue }
            requested[lamp] = try RequestedLine.output(try GPIOLines.locate(spec), consumer: "roundclock-light-\(lamp.rawValue)",
                                                       activeLow: activeLow, initial: false)
        }
        self.init(lines: requested, clock: MonotonicClock(sleepingOn: loop), executor: loop, onFailure: onFailure)
    }

    init(lines: sending [Lamp: any OutputLine], clock: any Clock<Duration>, executor: (any TaskExecutor)? = nil,
         onFailure: @escaping FailureHandler) {
        self.lines = lines
        self.clock = clock
        self.executor = executor
        self.onFailure = onFailure
    }

    /// Shows `light`: its lamp on (a blinking one starts on), the others off. The same light
    /// again changes nothing, so a blink goes on undisturbed.
    public func show(_ light: StackLight) {
        guard light != shown else { return }
        shown = light
        generation &+= 1
        blinker?.cancel()
        blinker = nil
        // Off first, then on: two lamps are never lit at once, not even between two writes.
        for lamp in Lamp.allCases where !light.lights(lamp) { drive(lamp, false) }
        guard let lamp = light.lamp else { return }
        drive(lamp, true)
        if light.blinking {
            let mine = generation
            let clock = self.clock
            blinker = Task(executorPreference: executor) { await self.blink(lamp, generation: mine, on: clock) }
        }
    }

    /// Every lamp off (shutdown); returns once the blink task, if any, has ended.
    public func release() async {
        let running = blinker
        show(.off)
        await running?.value
    }

    private func blink<C: Clock>(_ lamp: Lamp, generation mine: Int, on clock: C) async where C.Duration == Duration {
        var deadline = clock.now
        var on = true
        while true {
            deadline = deadline.advanced(by: StackLight.blinkHalfPeriod)
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
            guard generation == mine else { return }
            on.toggle()
            drive(lamp, on)
        }
    }

    /// Writes `on` unless the line already is there; after a failed write, always writes.
    private func drive(_ lamp: Lamp, _ on: Bool) {
        guard let line = lines[lamp], on != (levels[lamp] ?? false) || failing.contains(lamp) else { return }
        do {
            try line.set(on)
            levels[lamp] = on
            failing.remove(lamp)
        } catch {
            if !failing.contains(lamp) { onFailure(error) }
            failing.insert(lamp)
        }
    }
}
