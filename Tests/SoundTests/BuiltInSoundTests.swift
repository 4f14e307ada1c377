import Testing
@testable import Sound

/// The synthesized sounds, checked as an ear would: the bell's partials are where a bell has
/// them and die away, the beep is a 1 kHz tone, every sound peaks at -1 dBFS and is the same
/// on every run.
@Suite struct BuiltInSoundTests {
    /// The level of `hertz` in `samples` (Goertzel), relative to a full-scale sine.
    func level(_ samples: ArraySlice<Int16>, hertz: Double, rate: Int) -> Double {
        let w = Waveform.twoPi * hertz / Double(rate)
        let coefficient = 2 * Waveform.sine(w + Waveform.twoPi / 4)
        var s1 = 0.0, s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) / 32_767 + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return 2 * power.squareRoot() / Double(samples.count)
    }

    func rms(_ samples: ArraySlice<Int16>) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    @Test(arguments: BuiltInSound.allCases, [8_000, 44_100, 48_000])
    func everySoundPeaksAtMinusOneDBFSAndIsTheSameEachTime(_ sound: BuiltInSound, rate: Int) {
        let pcm = sound.render(rate: rate)
        #expect(pcm.rate == rate && pcm.channels == 1)
        let peak = pcm.samples.map { abs(Int($0)) }.max() ?? 0
        #expect(peak == Int((0.891 * 32_767).rounded()))
        #expect(pcm == sound.render(rate: rate))
    }

    @Test func theBellRingsAtItsPartialsAndNotBetween() {
        let rate = 48_000
        let pcm = BuiltInSound.bell.render(rate: rate)
        #expect(pcm.frames == 3 * rate)
        let window = pcm.samples[2_400..<(2_400 + 9_600)]
        for partial in BuiltInSound.bellPartials.prefix(5) {
            let at = level(window, hertz: BuiltInSound.bellStrike * partial.ratio, rate: rate)
            let between = level(window, hertz: BuiltInSound.bellStrike * partial.ratio * 1.08, rate: rate)
            #expect(at > 0.03, "partial \(partial.ratio): \(at)")
            #expect(at > 8 * between, "partial \(partial.ratio): \(at) against \(between) beside it")
        }
        // Inharmonic: the tierce (1.19) is no harmonic of the hum.
        #expect(level(window, hertz: BuiltInSound.bellStrike * 1.19, rate: rate) > 0.03)
    }

    @Test func theBellDecaysAndItsHighPartialsDieFirst() {
        let rate = 48_000
        let pcm = BuiltInSound.bell.render(rate: rate).samples
        let tenths = (0..<30).map { rms(pcm[($0 * rate / 10)..<(($0 + 1) * rate / 10)]) }
        for i in 1..<30 { #expect(tenths[i] < tenths[i - 1], "0.1 s window \(i) is not quieter: \(tenths)") }
        #expect(tenths[28] < tenths[0] / 10, "rung down before its end")
        let early = pcm[0..<4_800], late = pcm[24_000..<28_800]
        let high = BuiltInSound.bellStrike * 4.16, low = BuiltInSound.bellStrike * 0.5
        #expect(level(late, hertz: high, rate: rate) / level(early, hertz: high, rate: rate)
            < level(late, hertz: low, rate: rate) / level(early, hertz: low, rate: rate))
    }

    @Test func theBeepIsOneKilohertzForTwoHundredMilliseconds() {
        let pcm = BuiltInSound.beep.render(rate: 48_000)
        #expect(pcm.frames == 9_600)
        let middle = pcm.samples[2_400..<7_200]
        #expect(level(middle, hertz: 1_000, rate: 48_000) > 0.8)
        #expect(level(middle, hertz: 1_500, rate: 48_000) < 0.01)
        #expect(abs(Int(pcm.samples[0])) < 100 && abs(Int(pcm.samples[9_599])) < 100, "soft edges, no click")
    }

    @Test func theHornHoldsItsNoteAndTheTickIsShort() {
        let horn = BuiltInSound.horn.render(rate: 48_000)
        #expect(horn.frames == 57_600)
        let held = horn.samples[9_600..<48_000]
        #expect(level(held, hertz: 415, rate: 48_000) > 0.05 && level(held, hertz: 830, rate: 48_000) > 0.02)
        #expect(rms(horn.samples[9_600..<14_400]) > 0.7 * rms(horn.samples[38_400..<43_200]), "held, not decaying")
        let tick = BuiltInSound.tick.render(rate: 48_000)
        #expect(tick.frames == 720)
        #expect(rms(tick.samples[600..<720]) < rms(tick.samples[0..<120]) / 10)
    }

    @Test func aPartialByRotationStaysOnTheSeries() {
        var out = [Double](repeating: 0, count: 50_000)
        let step = Waveform.twoPi * 1_350 * 4.16 / 48_000, fall = Waveform.exponential(-1 / (0.15 * 48_000))
        Waveform.addPartial(to: &out, step: step, level: 0.5, fall: fall)
        var worst = 0.0, level = 0.5
        for n in 0..<out.count {
            worst = max(worst, abs(out[n] - level * Waveform.sine(step * Double(n))))
            level *= fall
        }
        #expect(worst < 1e-9)
    }

    @Test func sineAndExponentialAreExactEnough() {
        let cases: [(Double, Double)] = [(0, 0), (0.5, 0.479425538604203), (1.5707963267948966, 1), (3, 0.1411200080598672),
                                         (-2, -0.9092974268256817), (100, -0.5063656411097588), (1e4, -0.3056143888882521)]
        for (x, expected) in cases { #expect(abs(Waveform.sine(x) - expected) < 1e-9, "sin(\(x))") }
        let exps: [(Double, Double)] = [(0, 1), (1, 2.718281828459045), (-1, 0.36787944117144233), (-0.0001, 0.9999000049998333),
                                        (10, 22026.465794806718)]
        for (x, expected) in exps { #expect(abs(Waveform.exponential(x) / expected - 1) < 1e-12, "exp(\(x))") }
    }
}
