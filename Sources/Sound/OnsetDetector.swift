/// Finds where sounds begin in a recording, block by block: an onset is the first frame
/// whose level reaches `threshold` after at least `quietFrames` frames below it. What the
/// benchmarks use to time what a loopback card heard.
public struct OnsetDetector: Sendable {
    public let threshold: Int
    public let quietFrames: Int
    private var quiet: Int
    private var frame: Int64 = 0

    /// A recording is taken to start in silence.
    public init(threshold: Int, quietFrames: Int) {
        self.threshold = threshold
        self.quietFrames = quietFrames
        quiet = quietFrames
    }

    /// The onsets in the next block of interleaved `samples` (`channels` per frame), as frame
    /// numbers counted from the first block.
    public mutating func onsets(in samples: [Int16], channels: Int) -> [Int64] {
        var found: [Int64] = []
        var index = 0
        while index + channels <= samples.count {
            var level = 0
            for channel in 0..<channels { level = max(level, abs(Int(samples[index + channel]))) }
            if level >= threshold {
                if quiet >= quietFrames { found.append(frame) }
                quiet = 0
            } else {
                quiet += 1
            }
            frame += 1
            index += channels
        }
        return found
    }
}
