/// Sine and exponential for the synthesizer, without Foundation or C: Taylor series after
/// range reduction, exact to about 1e-12, the same on every architecture (IEEE arithmetic
/// only).
enum Waveform {
    static let twoPi = 6.283185307179586

    /// sin(x) for any finite x.
    static func sine(_ x: Double) -> Double {
        // Reduce to [-π, π].
        var r = x - (x / twoPi).rounded() * twoPi
        // Then to [-π/2, π/2]: sin(π - r) = sin(r).
        let halfPi = twoPi / 4
        if r > halfPi { r = 2 * halfPi - r } else if r < -halfPi { r = -2 * halfPi - r }
        let r2 = r * r
        var term = r
        var sum = r
        for n in stride(from: 2, through: 22, by: 2) {
            term *= -r2 / Double(n * (n + 1))
            sum += term
        }
        return sum
    }

    /// Adds `level × fallⁿ × sin(step × n)` to each `out[n]`: a decaying partial. The sine
    /// turns by a rotation from sample to sample and is set again from `sine` every 1,024
    /// samples, so it stays within about 1e-12 of the series at a small part of its cost.
    static func addPartial(to out: inout [Double], step: Double, level: Double, fall: Double = 1) {
        let turnCos = sine(step + twoPi / 4), turnSin = sine(step)
        var amplitude = level
        out.withUnsafeMutableBufferPointer { samples in
            var n = 0
            while n < samples.count {
                var y = sine(step * Double(n)), x = sine(step * Double(n) + twoPi / 4)
                let end = min(samples.count, n + 1_024)
                while n < end {
                    samples[n] += amplitude * y
                    (x, y) = (x * turnCos - y * turnSin, y * turnCos + x * turnSin)
                    amplitude *= fall
                    n += 1
                }
            }
        }
    }

    /// e^x for |x| up to a few hundred: e^(x/2^k) by its series, squared k times.
    static func exponential(_ x: Double) -> Double {
        var k = 0
        var y = x
        while abs(y) > 0.5 {
            y /= 2
            k += 1
        }
        var term = 1.0
        var sum = 1.0
        for n in 1...20 {
            term *= y / Double(n)
            sum += term
        }
        for _ in 0..<k { sum *= sum }
        return sum
    }
}
