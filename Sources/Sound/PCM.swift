/// Interleaved 16-bit PCM: what the clock plays and what a WAV file holds.
public struct PCM: Sendable, Hashable {
    /// Frames per second.
    public var rate: Int
    /// 1 (mono) or 2 (stereo, left first).
    public var channels: Int
    /// `frames × channels` samples, interleaved.
    public var samples: [Int16]

    public init(rate: Int, channels: Int, samples: [Int16]) {
        self.rate = rate
        self.channels = channels
        self.samples = samples
    }

    /// `frames` frames of silence.
    public init(silenceOf frames: Int, rate: Int, channels: Int) {
        self.init(rate: rate, channels: channels, samples: Array(repeating: 0, count: frames * channels))
    }

    public var frames: Int { samples.count / max(channels, 1) }

    /// The length in nanoseconds, rounded down.
    public var nanoseconds: Int64 { Int64(frames) * 1_000_000_000 / Int64(rate) }

    /// The same sound at `percent` (0-100) of its loudness, rounded toward zero.
    public func scaled(percent: Int) -> PCM {
        let gain = Int32(max(0, min(percent, 100)))
        guard gain < 100 else { return self }
        return PCM(rate: rate, channels: channels, samples: samples.map { Int16(Int32($0) * gain / 100) })
    }

    /// The same sound at `rate` and with `channels` (linear interpolation between frames; mono
    /// is copied to both sides, stereo is averaged to mono).
    public func converted(rate newRate: Int, channels newChannels: Int) -> PCM {
        let remixed = channels == newChannels ? self : mixed(to: newChannels)
        return newRate == rate ? remixed : remixed.resampled(to: newRate)
    }

    private func mixed(to newChannels: Int) -> PCM {
        var out: [Int16] = []
        out.reserveCapacity(frames * newChannels)
        for frame in 0..<frames {
            if channels == 1 {
                for _ in 0..<newChannels { out.append(samples[frame]) }
            } else {
                let left = Int(samples[2 * frame]), right = Int(samples[2 * frame + 1])
                out.append(Int16((left + right) >> 1))
            }
        }
        return PCM(rate: rate, channels: newChannels, samples: out)
    }

    private func resampled(to newRate: Int) -> PCM {
        let outFrames = frames > 0 ? Int((Int64(frames) * Int64(newRate) + Int64(rate) - 1) / Int64(rate)) : 0
        var out: [Int16] = []
        out.reserveCapacity(outFrames * channels)
        for frame in 0..<outFrames {
            // The source position frame × rate / newRate, as a whole frame and a fraction.
            let numerator = Int64(frame) * Int64(rate)
            let index = Int(numerator / Int64(newRate))
            let fraction = Double(numerator % Int64(newRate)) / Double(newRate)
            for channel in 0..<channels {
                let a = Double(samples[index * channels + channel])
                let b = index + 1 < frames ? Double(samples[(index + 1) * channels + channel]) : a
                out.append(Int16(clamping: Int((a + (b - a) * fraction).rounded())))
            }
        }
        return PCM(rate: newRate, channels: channels, samples: out)
    }
}
