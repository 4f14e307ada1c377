/// The settings a running clock takes without setting its panels up again: the program it
/// is ready with, class start times, brightness, the idle clock and the cadence (the setup
/// page's, laid over the config file).
public struct ClockSettings: Sendable, Hashable {
    /// The program to be ready with, when the setting changed; `nil`: unchanged.
    public var program: Program?
    public var classStarts: ClassStarts?
    public var brightness: BrightnessSchedule
    public var idleClockAfter: Duration?
    public var cadence: Cadence

    public init(program: Program?, classStarts: ClassStarts?, brightness: BrightnessSchedule, idleClockAfter: Duration?, cadence: Cadence) {
        self.program = program
        self.classStarts = classStarts
        self.brightness = brightness
        self.idleClockAfter = idleClockAfter
        self.cadence = cadence
    }
}

extension Controller {
    /// Takes `settings` at `now`. Brightness, the idle clock, the cadence and the class start
    /// times apply at once; the program, when it changed, only if the clock is ready or
    /// shows the wall clock (a session underway keeps its program, as with MODE).
    public mutating func take(_ settings: ClockSettings, at now: Instant) -> [Occurrence<Instant>] {
        let out = advance(to: now)
        let at = processedUntil ?? now
        brightness = settings.brightness
        idleClockAfter = settings.idleClockAfter
        cadence = settings.cadence
        if settings.classStarts != classStarts {
            classStarts = settings.classStarts
            classStartsArmed = false
        }
        let idle = program.kind == .wallClock || session.state(at: at) == .ready
        guard let next = settings.program, next != program, idle else { return out }
        select(next)
        return out + [.action(.program(next.name), at: at)]
    }
}
