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
