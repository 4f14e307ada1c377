/// Where a playing stream is in time: the frame that leaves the device at a CLOCK_MONOTONIC
/// instant, and the stream's rate. Built afresh from every position report, so the sound
/// card's own clock, however it drifts from the system's, is followed.
public struct StreamClock: Sendable, Hashable {
    /// The frame at the device's pointer when `nanoseconds` was stamped.
    public var frame: Int64
    public var nanoseconds: Int64
    public var rate: Int

    public init(frame: Int64, nanoseconds: Int64, rate: Int) {
        self.frame = frame
        self.nanoseconds = nanoseconds
        self.rate = rate
    }

    /// From a position report: `written` frames handed to the device in all, `queued` of
    /// them still waiting to be played at `nanoseconds`.
    public init(written: Int64, queued: Int64, at nanoseconds: Int64, rate: Int) {
        self.init(frame: written - queued, nanoseconds: nanoseconds, rate: rate)
    }

    /// The frame that leaves the device at `instant` (nanoseconds), to the nearest frame.
    public func frame(atNanoseconds instant: Int64) -> Int64 {
        let offset = instant - nanoseconds
        // Whole seconds apart, then the rest: no overflow however far the two instants are.
        let seconds = offset / 1_000_000_000, rest = offset % 1_000_000_000
        let fraction = rest * Int64(rate)
        let rounded = fraction >= 0 ? (fraction + 500_000_000) / 1_000_000_000 : -((-fraction + 499_999_999) / 1_000_000_000)
        return frame + seconds * Int64(rate) + rounded
    }

    /// When `frame` leaves the device (nanoseconds, rounded down).
    public func nanoseconds(ofFrame other: Int64) -> Int64 {
        let frames = other - frame
        let seconds = frames / Int64(rate), rest = frames % Int64(rate)
        return nanoseconds + seconds * 1_000_000_000 + rest * 1_000_000_000 / Int64(rate)
    }
}
