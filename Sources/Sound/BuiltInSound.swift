/// The sounds the clock makes itself, synthesized at start-up into PCM: no samples from
/// anyone else.
public enum BuiltInSound: String, Sendable, CaseIterable {
    /// One strike of a boxing bell: inharmonic partials, each with its own exponential decay
    /// (the higher, the shorter), so the "ding" rings after its clang. `count` 3 makes the
    /// classic ding-ding-ding.
    case bell
    /// An air horn: two detuned reeds rich in harmonics, a fast attack, a held note.
    case horn
    /// A 1 kHz beep with soft edges, 200 ms.
    case beep
    /// A short 3 kHz click, 15 ms.
    case tick

    /// How long the sound lasts: the length `render(rate:)` synthesizes.
    public var duration: Duration {
        switch self {
        case .bell: .seconds(3)
        case .horn: .milliseconds(1_200)
        case .beep: .milliseconds(200)
        case .tick: .milliseconds(15)
        }
    }

    /// Peak level of every built-in sound: -1 dBFS.
    static let peak = 0.891

    /// The sound as mono PCM at `rate`.
    public func render(rate: Int) -> PCM {
        let samples: [Double]
        switch self {
        case .bell: samples = Self.bell(rate: rate)
        case .horn: samples = Self.horn(rate: rate)
        case .beep: samples = Self.tone(rate: rate, hertz: 1_000, seconds: 0.2, edge: 0.005)
        case .tick: samples = Self.click(rate: rate)
        }
        return PCM(rate: rate, channels: 1, samples: Self.normalized(samples))
    }

    /// A bell's partials relative to its strike note (hum, prime, tierce, quint, nominal and
    /// upper partials of a struck bell), their levels and decay times in seconds.
    static let bellPartials: [(ratio: Double, level: Double, decay: Double)] = [
        (0.5, 0.35, 1.6), (1.0, 1.0, 1.2), (1.19, 0.55, 0.9), (1.51, 0.35, 0.7),
        (2.0, 0.65, 0.6), (2.51, 0.3, 0.35), (2.66, 0.25, 0.3), (3.01, 0.2, 0.25), (4.16, 0.12, 0.15),
    ]
    static let bellStrike = 1_350.0
    /// Long enough for the hum to ring down to a tenth.
    static let bellSeconds = 3.0

    static func bell(rate: Int) -> [Double] {
        let frames = Int(bellSeconds * Double(rate))
        var out = [Double](repeating: 0, count: frames)
        for partial in bellPartials {
            let step = Waveform.twoPi * bellStrike * partial.ratio / Double(rate)
            let fall = Waveform.exponential(-1 / (partial.decay * Double(rate)))
            Waveform.addPartial(to: &out, step: step, level: partial.level, fall: fall)
        }
        // A 1 ms attack, so the strike does not click, and a 100 ms fade at the end of the ring.
        return enveloped(out, rate: rate, attack: 0.001, release: 0.1)
    }

    static func horn(rate: Int) -> [Double] {
        let frames = Int(1.2 * Double(rate))
        var out = [Double](repeating: 0, count: frames)
        for reed in [415.0, 421.0] {
            for harmonic in 1...8 {
                let step = Waveform.twoPi * reed * Double(harmonic) / Double(rate)
                Waveform.addPartial(to: &out, step: step, level: 1 / Double(harmonic))
            }
        }
        return enveloped(out, rate: rate, attack: 0.02, release: 0.06)
    }

    static func tone(rate: Int, hertz: Double, seconds: Double, edge: Double) -> [Double] {
        var out = [Double](repeating: 0, count: Int(seconds * Double(rate)))
        Waveform.addPartial(to: &out, step: Waveform.twoPi * hertz / Double(rate), level: 1)
        return enveloped(out, rate: rate, attack: edge, release: edge)
    }

    static func click(rate: Int) -> [Double] {
        var out = [Double](repeating: 0, count: Int(0.015 * Double(rate)))
        let fall = Waveform.exponential(-1 / (0.003 * Double(rate)))
        Waveform.addPartial(to: &out, step: Waveform.twoPi * 3_000 / Double(rate), level: 1, fall: fall)
        return out
    }

    /// Linear attack and release ramps.
    static func enveloped(_ samples: [Double], rate: Int, attack: Double, release: Double) -> [Double] {
        let up = max(1, Int(attack * Double(rate))), down = max(1, Int(release * Double(rate)))
        return samples.enumerated().map { i, s in
            s * min(1, Double(i) / Double(up)) * min(1, Double(samples.count - 1 - i) / Double(down))
        }
    }

    /// Scales to the `peak` level and rounds to 16 bits.
    static func normalized(_ samples: [Double]) -> [Int16] {
        let loudest = samples.reduce(0) { max($0, abs($1)) }
        guard loudest > 0 else { return samples.map { _ in 0 } }
        let gain = peak * 32_767 / loudest
        return samples.map { Int16(clamping: Int(($0 * gain).rounded())) }
    }
}
