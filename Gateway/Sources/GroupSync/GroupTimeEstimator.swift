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

    /// Whether every instant lies in `GroupInstant`'s range, each clock's pair in order, and
    /// the reference answered within `GroupInstant.longestTurnaround`: only such a sample is
    /// used, and on it the arithmetic below cannot overflow.
    public var isPlausible: Bool {
        [sent, referenceReceived, referenceSent, received].allSatisfy(GroupInstant.contains)
            && received >= sent && referenceSent >= referenceReceived
            && referenceSent - referenceReceived <= GroupInstant.longestTurnaround
    }

    /// Group time − local time at `midpoint`, exact when both ways took equally long.
    public var offset: Int64 { (referenceReceived - sent) / 2 + (referenceSent - received) / 2 }
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
    /// How far group time may be from the line at `origin` (nanoseconds), as NTP's root
    /// distance bounds it: half the fastest recent round trip's delay (a path slower one way
    /// than the other moves the offset by up to that, unseen) plus the recent samples'
    /// dispersion about the line (root mean square).
    public var error: Int64

    public init(origin: Int64, offset: Int64, frequency: Double, error: Int64) {
        self.origin = origin
        self.offset = offset
        self.frequency = frequency
        self.error = error
    }

    /// Group time at the local instant `local`.
    /// Saturating: no input traps.
    public func groupTime(atLocal local: Int64) -> Int64 {
        let drift = GroupInstant.rounded(Double(GroupInstant.difference(local, origin)) * frequency)
        return GroupInstant.sum(GroupInstant.sum(local, offset), drift)
    }

    /// The local instant at which group time is `group` (the inverse of `groupTime`).
    public func local(atGroupTime group: Int64) -> Int64 {
        let guess = GroupInstant.difference(group, offset)
        let drift = GroupInstant.rounded(Double(GroupInstant.difference(guess, origin)) * frequency / (1 + frequency))
        return GroupInstant.difference(guess, drift)
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
        guard sample.isPlausible, sample.delay >= 0 else { return false }
        if let fit, Self.distance(fit, sample) > Self.outlierDistance + sample.delay {
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

    /// How far `sample`'s offset lies from `fit` (saturating).
    static func distance(_ fit: GroupTimeFit, _ sample: TimeSample) -> Int64 {
        let residual = GroupInstant.difference(GroupInstant.difference(fit.groupTime(atLocal: sample.midpoint), sample.midpoint), sample.offset)
        return residual == .min ? .max : abs(residual)
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
        let offset = GroupInstant.sum(last.offset, GroupInstant.rounded(fitted ?? carried.reduce(0, +) / Double(carried.count)))
        let line = GroupTimeFit(origin: origin, offset: offset, frequency: frequency, error: 0)
        // The error bound, as NTP's root distance: half the fastest recent round trip's delay
        // plus the recent samples' dispersion about the line (root mean square).
        let residuals = recent.map { Double(Self.distance(line, $0)) }
        let rms = (residuals.reduce(0) { $0 + $1 * $1 } / Double(residuals.count)).squareRoot()
        let halfDelay = Double(recent.map(\.delay).min() ?? 0) / 2
        return GroupTimeFit(origin: origin, offset: offset, frequency: frequency, error: GroupInstant.rounded(halfDelay + rms))
    }
}
