/// One round trip to the reference (docs/sync.md "Group time"): `sent` and `received` on this
/// member's monotonic clock, `referenceReceived` and `referenceSent` in group time, all in
/// nanoseconds. As NTP computes them: the offset of group time from this clock, and the delay
/// of the round trip without the reference's own time.
public struct TimeSample: Sendable, Hashable {
    public var sent: Int64
    public var referenceReceived: Int64
    public var referenceSent: Int64
    public var received: Int64

    public init(sent: Int64, referenceReceived: Int64, referenceSent: Int64, received: Int64) {
        self.sent = sent
        self.referenceReceived = referenceReceived
        self.referenceSent = referenceSent
        self.received = received
    }

    /// Group time − local time at `midpoint`, exact when both ways took equally long.
    public var offset: Int64 { ((referenceReceived - sent) &+ (referenceSent - received)) / 2 }
    /// The round trip less the reference's time between receiving and answering.
    public var delay: Int64 { (received - sent) - (referenceSent - referenceReceived) }
    /// The local instant the offset belongs to.
    public var midpoint: Int64 { sent + (received - sent) / 2 }
}

/// Group time as a line over this member's monotonic clock: group = local + offset, where the
/// offset moves by `frequency` (group seconds gained per local second) from `origin`.
public struct GroupTimeFit: Sendable, Hashable {
    /// The local instant the offset is measured at.
    public var origin: Int64
    public var offset: Int64
    public var frequency: Double
    /// How far the samples the fit rests on lie from it, at most (nanoseconds): the error of
    /// the estimate as the samples show it.
    public var error: Int64

    public init(origin: Int64, offset: Int64, frequency: Double, error: Int64) {
        self.origin = origin
        self.offset = offset
        self.frequency = frequency
        self.error = error
    }

    /// Group time at the local instant `local`.
    public func groupTime(atLocal local: Int64) -> Int64 {
        local + offset + Int64((Double(local - origin) * frequency).rounded())
    }

    /// The local instant at which group time is `group` (the inverse of `groupTime`).
    public func local(atGroupTime group: Int64) -> Int64 {
        let guess = group - offset
        return guess - Int64((Double(guess - origin) * frequency / (1 + frequency)).rounded())
    }
}

/// The NTP-style filter of one member's round trips to one reference (docs/sync.md): it keeps
/// the last `capacity` samples, sets aside those whose delay lies well above the smallest (a
/// queue in the broker or on the link made one way longer than the other), and fits a line
/// through the rest, so the drift between this clock and the reference's is followed between
/// samples. Pure: the gateway feeds it the samples it measured.
public struct GroupTimeEstimator: Sendable {
    public static let capacity = 1024
    /// Samples at least this much slower than the fastest are still used.
    public static let delayMargin: Int64 = 1_000_000
    /// The line's slope is fitted only over samples that span this much local time; before,
    /// the last known frequency (at first zero) is kept.
    public static let frequencySpan: Int64 = 30_000_000_000
    /// The offset is the mean of this many of the newest samples kept, carried along the slope.
    public static let offsetSamples = 16
    /// Clocks of this kind differ by well under this much (parts per million); a fit beyond it
    /// is a step of the reference's time, not a drift.
    public static let maximumFrequency = 500e-6
    /// A sample this far from the line (beyond its delay) is an outlier: set aside, and after
    /// `stepCount` of them in a row the reference's time is taken to have stepped.
    public static let outlierDistance: Int64 = 50_000_000
    public static let stepCount = 4

    public private(set) var samples: [TimeSample] = []
    public private(set) var fit: GroupTimeFit?
    private var outliers: [TimeSample] = []

    public init() {}

    /// Adds a round trip; returns `true` when it moved the estimate (not an outlier).
    @discardableResult
    public mutating func add(_ sample: TimeSample) -> Bool {
        guard sample.delay >= 0, sample.received >= sample.sent else { return false }
        if let fit, abs(fit.groupTime(atLocal: sample.midpoint) - sample.midpoint - sample.offset) > Self.outlierDistance + sample.delay {
            outliers.append(sample)
            guard outliers.count >= Self.stepCount else { return false }
            samples = outliers
            outliers = []
            self.fit = Self.fitted(samples, frequency: 0)
            return true
        }
        outliers = []
        samples.append(sample)
        if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
        fit = Self.fitted(samples, frequency: fit?.frequency ?? 0)
        return true
    }

    /// Forgets every sample (another reference, another group time).
    public mutating func reset() {
        samples = []
        outliers = []
        fit = nil
    }

    /// The fastest fifth of the samples, and any within `delayMargin` of the fastest.
    static func selected(_ samples: [TimeSample]) -> [TimeSample] {
        let delays = samples.map(\.delay).sorted()
        guard let fastest = delays.first else { return [] }
        let limit = max(fastest + Self.delayMargin, delays[delays.count / 5])
        return samples.filter { $0.delay <= limit }
    }

    static func fitted(_ all: [TimeSample], frequency known: Double) -> GroupTimeFit? {
        let used = selected(all)
        guard let last = used.last else { return nil }
        let origin = last.midpoint
        // The drift: the line through every sample kept, once they span long enough; its
        // value at `origin` is the offset. Before, the newest samples' mean, each carried to
        // `origin` along the last known slope.
        var frequency = known
        var fitted: Double?
        if let first = used.first, used.count >= 3, origin - first.midpoint >= Self.frequencySpan {
            let xs = used.map { Double($0.midpoint - origin) }
            let ys = used.map { Double($0.offset - last.offset) }
            let meanX = xs.reduce(0, +) / Double(xs.count), meanY = ys.reduce(0, +) / Double(ys.count)
            let sxx = xs.reduce(0) { $0 + ($1 - meanX) * ($1 - meanX) }
            let sxy = zip(xs, ys).reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) }
            if sxx > 0 {
                frequency = min(max(sxy / sxx, -Self.maximumFrequency), Self.maximumFrequency)
                fitted = meanY - frequency * meanX
            }
        }
        let recent = used.suffix(Self.offsetSamples)
        let carried = recent.map { Double($0.offset - last.offset) + frequency * Double(origin - $0.midpoint) }
        let offset = last.offset + Int64((fitted ?? carried.reduce(0, +) / Double(carried.count)).rounded())
        let line = GroupTimeFit(origin: origin, offset: offset, frequency: frequency, error: 0)
        // The error: how far the recent samples lie from the line; one alone, half its delay.
        let spread = recent.map { abs(line.groupTime(atLocal: $0.midpoint) - $0.midpoint - $0.offset) }.max() ?? 0
        return GroupTimeFit(origin: origin, offset: offset, frequency: frequency, error: recent.count > 1 ? spread : last.delay / 2)
    }
}
