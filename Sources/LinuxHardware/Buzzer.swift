import RoundClockCore

/// A buzzer or relay on a GPIO output line, playing one pattern per signal. Patterns run
/// in their own task, so a signal never delays a display update; a new signal cuts the
/// one still playing short.
public actor Buzzer {
    /// On/off durations: on, off, on, off, ... (the line ends off).
    public typealias Pattern = [Duration]

    /// Defaults: a short tick, a long bell, three short warning beeps, a long end, a
    /// finish of two shorts and a long.
    public static let defaultPatterns: [Signal: Pattern] = [
        .prepTick: [.milliseconds(150)],
        .start: [.milliseconds(800)],
        .warning: [.milliseconds(150), .milliseconds(100), .milliseconds(150), .milliseconds(100), .milliseconds(150)],
        .end: [.milliseconds(800)],
        .finish: [.milliseconds(400), .milliseconds(200), .milliseconds(400), .milliseconds(200), .milliseconds(800)],
    ]

    private let line: RequestedLine
    private let patterns: [Signal: Pattern]
    private var playing: Task<Void, Never>?
    /// The first error driving the line, if any (logged by the owner).
    public private(set) var lastError: SystemError?

    public init(line spec: String, activeLow: Bool, patterns: [Signal: Pattern] = Buzzer.defaultPatterns) throws(SystemError) {
        line = try RequestedLine.output(try GPIOLines.locate(spec), consumer: "roundclock-buzzer", activeLow: activeLow, initial: false)
        self.patterns = patterns
    }

    public func play(_ signal: Signal) {
        playing?.cancel()
        guard let pattern = patterns[signal], !pattern.isEmpty else { return }
        playing = Task { await self.run(pattern) }
    }

    /// Off now (shutdown).
    public func silence() {
        playing?.cancel()
        playing = nil
        drive(false)
    }

    private func run(_ pattern: Pattern) async {
        for (index, duration) in pattern.enumerated() {
            guard !Task.isCancelled else { break }
            drive(index % 2 == 0)
            try? await Task.sleep(for: duration)
        }
        if !Task.isCancelled { drive(false) }
    }

    private func drive(_ on: Bool) {
        do { try line.set(on) } catch { lastError = lastError ?? error }
    }
}
