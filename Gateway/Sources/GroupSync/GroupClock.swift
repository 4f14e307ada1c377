import JSON

/// One member's view of the group's time (docs/sync.md "Group time"), as a pure state
/// machine: which member is the reference, round trips to it, the estimate, and the status
/// the member reports. Fed the broker's connects and losses, the members' presence, the
/// answers to its asks and the time passing (`tick`); the gateway carries out its effects.
///
/// Group time is the reference's monotonic clock plus a constant (`epoch`), so no member's
/// wall clock moves it once it runs: a member that starts a group takes its wall clock's
/// reading as the constant; one that takes over from a departed reference takes its own
/// estimate of group time, so the time goes on across the handover.
///
/// The reference is the present member that says it is one (the lowest id, should two say
/// so); with none, the lowest id among the synced present members takes the role, or among
/// all present members when none is synced.
public struct GroupClock: Sendable {
    public enum Input: Sendable, Hashable {
        /// Connected and subscribed; `settled` once the retained presences have arrived.
        case connected
        case settled(Readings)
        case disconnected
        /// A member's retained presence; `nil`: it left.
        case presence(member: String, GroupPresence?, Readings)
        /// An answer to one of this member's asks, received at local instant `received`.
        case answer(sequence: Int64, reference: String, referenceReceived: Int64, referenceSent: Int64, received: Int64)
        case tick(Readings)
    }

    /// This member's monotonic clock and CLOCK_REALTIME, read back to back (nanoseconds).
    public struct Readings: Sendable, Hashable {
        public var local: Int64
        public var realtime: Int64
        public init(local: Int64, realtime: Int64) {
            self.local = local
            self.realtime = realtime
        }
    }

    public enum Effect: Sendable, Hashable {
        /// Publish this member's presence, retained.
        case presence(GroupPresence)
        /// Ask `reference` for its time, QoS 0.
        case ask(reference: String, sequence: Int64)
        case log(GroupTimeStatus)
    }

    /// With no reference, a member waits this long after connecting before it takes the role:
    /// members that start together (power back in the gym) see each other's presence first.
    public static let electionDelay: Int64 = 1_000_000_000
    /// A round trip's burst after a new reference: this many asks, `burstInterval` apart;
    /// then one every `interval`.
    public static let burstCount = 32
    public static let burstInterval: Int64 = 50_000_000
    public static let interval: Int64 = 250_000_000
    /// An ask unanswered this long is forgotten.
    public static let answerTimeout: Int64 = 5_000_000_000
    /// The estimate counts as synced once its error is within this bound (and until it passes
    /// twice the bound) while its newest sample is at most `staleAfter` old.
    public static let errorBound: Int64 = 5_000_000
    public static let staleAfter: Int64 = 30_000_000_000
    /// Samples needed before the estimate counts: the first ones of a burst; after a new
    /// reference took over, the burst and a few more.
    public static let samplesNeeded = 16
    public static let samplesAfterHandover = 16

    public let member: String
    private var connected = false
    private var settled = false
    private var settledAt: Int64 = 0
    private var present: [String: GroupPresence] = [:]
    /// The member followed, or this one while it is the reference.
    public private(set) var reference: String?
    /// While this member is the reference: group time = local + epoch.
    public private(set) var epoch: Int64?
    public private(set) var estimator = GroupTimeEstimator()
    /// The last estimate of the previous reference's time, used until the new one has its own.
    private var holdover: GroupTimeFit?
    private var lastSample: Int64?
    private var nextSequence: Int64 = 1
    private var outstanding: [Int64: Int64] = [:]
    private var burstLeft = 0
    private var nextAsk: Int64 = .min
    public private(set) var status = GroupTimeStatus.unsynced(.noReference)
    private var publishedPresence: GroupPresence?

    public init(member: String) { self.member = member }

    /// Group time at the local instant `local`, or `nil` while this member has no estimate at
    /// all: then its clock counts alone.
    public func groupTime(atLocal local: Int64) -> Int64? {
        if let epoch { return local + epoch }
        return (estimate ?? holdover)?.groupTime(atLocal: local)
    }

    /// The local instant at which group time is `group`, or `nil` without an estimate.
    public func local(atGroupTime group: Int64) -> Int64? {
        if let epoch { return group - epoch }
        return (estimate ?? holdover)?.local(atGroupTime: group)
    }

    /// The estimate of the followed reference's time, once it rests on enough samples: a few
    /// at first, more to replace the previous reference's (which stays good meanwhile).
    var estimate: GroupTimeFit? {
        estimator.samples.count >= (holdover == nil ? Self.samplesNeeded : Self.samplesAfterHandover) ? estimator.fit : nil
    }

    /// The local instant the next ask is due, while this member follows a reference.
    public var nextAskDue: Int64? { epoch == nil && reference != nil && connected ? nextAsk : nil }

    public mutating func handle(_ input: Input) -> [Effect] {
        var effects: [Effect] = []
        switch input {
        case .connected:
            connected = true
            settled = false
            publishedPresence = nil
        case .settled(let now):
            guard connected else { return [] }
            settled = true
            settledAt = now.local
            effects += elect(now)
        case .disconnected:
            connected = false
            settled = false
        case .presence(let id, let presence, let now):
            guard id != member else { return [] }
            present[id] = presence
            if settled { effects += elect(now) }
        case .answer(let sequence, let from, let referenceReceived, let referenceSent, let received):
            guard from == reference, epoch == nil, let sent = outstanding.removeValue(forKey: sequence) else { return [] }
            if estimator.add(TimeSample(sent: sent, referenceReceived: referenceReceived, referenceSent: referenceSent, received: received)) {
                lastSample = received
            }
        case .tick(let now):
            if settled, epoch == nil, reference.map({ present[$0]?.role != .reference }) ?? true { effects += elect(now) }
            effects += ask(now)
        }
        return effects + statusChanged(at: inputTime(input))
    }

    private func inputTime(_ input: Input) -> Int64? {
        switch input {
        case .settled(let now), .tick(let now), .presence(_, _, let now): now.local
        case .answer(_, _, _, _, let received): received
        case .connected, .disconnected: nil
        }
    }

    private mutating func elect(_ now: Readings) -> [Effect] {
        let references = present.filter { $0.value.role == .reference }.map(\.key) + (epoch != nil ? [member] : [])
        if let lowest = references.min(by: MemberID.precedes) {
            return lowest == member ? [] : follow(lowest, now)
        }
        // Members that start together see each other's presence before one takes the role.
        guard now.local - settledAt >= Self.electionDelay else { return [] }
        let synced = status.isSynced
        var candidates = present.filter { $0.value.synced }.map(\.key) + (synced ? [member] : [])
        if candidates.isEmpty { candidates = Array(present.keys) + [member] }
        guard candidates.min(by: MemberID.precedes) == member else { return [] }
        // Group time goes on from this member's estimate, or starts from its wall clock.
        let start = groupTime(atLocal: now.local) ?? now.realtime
        epoch = start - now.local
        reference = member
        estimator.reset()
        holdover = nil
        outstanding = [:]
        return []
    }

    private mutating func follow(_ other: String, _ now: Readings) -> [Effect] {
        guard reference != other || epoch != nil else { return [] }
        if let epoch {
            holdover = GroupTimeFit(origin: now.local, offset: epoch, frequency: 0, error: 0)
        } else if let fit = estimate {
            holdover = fit
        }
        epoch = nil
        reference = other
        estimator.reset()
        outstanding = [:]
        burstLeft = Self.burstCount
        nextAsk = now.local
        return ask(now)
    }

    private mutating func ask(_ now: Readings) -> [Effect] {
        guard connected, epoch == nil, let reference, now.local >= nextAsk else { return [] }
        outstanding = outstanding.filter { now.local - $0.value < Self.answerTimeout }
        let sequence = nextSequence
        nextSequence += 1
        outstanding[sequence] = now.local
        burstLeft = max(0, burstLeft - 1)
        nextAsk = now.local + (burstLeft > 0 ? Self.burstInterval : spread(Self.interval, sequence))
        return [.ask(reference: reference, sequence: sequence)]
    }

    private mutating func statusChanged(at local: Int64?) -> [Effect] {
        let now = status(at: local)
        var effects: [Effect] = []
        if now.kind != status.kind || now.reference != status.reference { effects.append(.log(now)) }
        status = now
        let presence = GroupPresence(role: epoch != nil ? .reference : .member, synced: now.isSynced)
        if connected, settled, presence != publishedPresence {
            publishedPresence = presence
            effects.append(.presence(presence))
        }
        return effects
    }

    private func status(at local: Int64?) -> GroupTimeStatus {
        if epoch != nil { return .reference }
        guard let reference else { return .unsynced(.noReference) }
        guard let fit = estimate else {
            return .unsynced(holdover == nil ? .noEstimate(reference: reference) : .newReference(reference: reference))
        }
        // Hysteresis: a synced member stays so until its error passes twice the bound.
        let wasSynced = if case .synced(let was, _) = status { was == reference } else { false }
        if fit.error > (wasSynced ? 2 * Self.errorBound : Self.errorBound) {
            return .unsynced(.errorAboveBound(reference: reference, error: fit.error))
        }
        if let local, let lastSample, local - lastSample > Self.staleAfter {
            return .unsynced(.noAnswer(reference: reference, since: local - lastSample))
        }
        // Unchanged status while only the numbers move: the log says it once.
        if case .synced(let was, let error) = status, was == reference { return .synced(reference: reference, error: error) }
        return .synced(reference: reference, error: fit.error)
    }

    /// `interval` ± 20 %, by the member id and the ask's number: members that started
    /// together do not ask at the same instants, where they would queue behind each other
    /// on the reference's link and bias each other's offsets.
    private func spread(_ interval: Int64, _ sequence: Int64) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in member.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ UInt64(bitPattern: sequence)) &* 0x100_0000_01b3
        hash ^= hash >> 29
        return interval * 4 / 5 + Int64(hash % UInt64(interval * 2 / 5))
    }
}

/// What a member says about its group time: in its log, in `/api/state` and on the phone page.
public enum GroupTimeStatus: Sendable, Hashable, CustomStringConvertible {
    case reference
    case synced(reference: String, error: Int64)
    case unsynced(Reason)

    public enum Reason: Sendable, Hashable {
        case noReference
        case noEstimate(reference: String)
        case newReference(reference: String)
        case errorAboveBound(reference: String, error: Int64)
        case noAnswer(reference: String, since: Int64)
    }

    public var isSynced: Bool {
        switch self {
        case .reference, .synced: true
        case .unsynced: false
        }
    }

    var kind: Int {
        switch self {
        case .reference: 0
        case .synced: 1
        case .unsynced(let reason):
            switch reason {
            case .noReference: 2
            case .noEstimate: 3
            case .newReference: 4
            case .errorAboveBound: 5
            case .noAnswer: 6
            }
        }
    }

    public var reference: String? {
        switch self {
        case .reference: nil
        case .synced(let reference, _): reference
        case .unsynced(let reason):
            switch reason {
            case .noReference: nil
            case .noEstimate(let r), .newReference(let r), .errorAboveBound(let r, _), .noAnswer(let r, _): r
            }
        }
    }

    public var description: String {
        switch self {
        case .reference: "this member is the reference"
        case .synced(let reference, let error): "synced to the reference \(reference) (error \(Self.milliseconds(error)) ms)"
        case .unsynced(let reason):
            switch reason {
            case .noReference: "not synced (no reference yet); this clock counts alone"
            case .noEstimate(let r): "not synced (no estimate of \(r)'s time yet); this clock counts alone"
            case .newReference(let r): "not synced (new reference \(r), measuring; the last estimate goes on meanwhile)"
            case .errorAboveBound(let r, let error):
                "not synced (the estimate of \(r)'s time is off by up to \(Self.milliseconds(error)) ms, above \(Self.milliseconds(GroupClock.errorBound)) ms); this clock follows the group on it"
            case .noAnswer(let r, let since):
                "not synced (no answer from the reference \(r) for \(since / 1_000_000_000) s); this clock counts on its last estimate"
            }
        }
    }

    /// `{"state": "synced", "reference": "ring1-north", "error_ms": 0.4, "note": "…"}`, as
    /// the gateway adds it to the clock's state lines (`group_time`).
    public var json: JSONValue {
        let state = switch self {
        case .reference: "reference"
        case .synced: "synced"
        case .unsynced: "unsynced"
        }
        var error = JSONValue.null
        if case .synced(_, let nanoseconds) = self { error = .number(Self.milliseconds(nanoseconds)) }
        return .object([JSONMember("state", .string(state)), JSONMember("reference", reference.map { .string($0) } ?? .null),
                        JSONMember("error_ms", error), JSONMember("note", .string(description))])
    }

    static func milliseconds(_ nanoseconds: Int64) -> String {
        let tenths = (nanoseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
