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
/// all present members when none is synced. A reference that has not answered for
/// `silenceLimit`, or a member chosen that has not taken the role by then, is treated as gone
/// until its presence changes. Every connect forgets the presences: the broker sends the
/// retained ones again, and one emptied while this member was away is not among them.
///
/// Anyone on the broker can answer an ask. An answer is used only `confirmWindow` after it
/// arrived, and not at all when another answer to the same ask disagrees with it: then
/// someone else answers in the reference's name, and neither is trusted.
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
        /// Asks answered twice, differently, since the last report (at most one a minute).
        case conflictingAnswers(count: Int)
        /// The followed reference has not answered for `silenceLimit`: taken as gone.
        case silentReference(String)
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
    /// The estimate counts as synced once its error bound is within this (and until it passes
    /// twice this) while its newest sample is at most `staleAfter` old.
    public static let errorBound: Int64 = 25_000_000
    /// The error bound grows by this much per nanosecond since the newest sample (NTP's
    /// dispersion rate, 15 ppm): two clocks' drift may have moved the offset since.
    public static let dispersionRate = 15e-6
    public static let staleAfter: Int64 = 30_000_000_000
    /// Samples needed before the estimate counts: the first ones of a burst; after a new
    /// reference took over, the burst and a few more.
    public static let samplesNeeded = 16
    public static let samplesAfterHandover = 16
    /// An answer waits this long for a second, disagreeing answer to the same ask.
    public static let confirmWindow: Int64 = 200_000_000
    /// A followed reference silent this long (while connected) is taken as gone.
    public static let silenceLimit: Int64 = 10_000_000_000
    /// Conflicting answers are reported at most this often.
    public static let conflictReportInterval: Int64 = 60_000_000_000

    public let member: String
    private var connected = false
    private var settled = false
    private var settledAt: Int64 = 0
    private var present: [String: GroupPresence] = [:]
    /// References that stopped answering, and members chosen that never took the role, with
    /// the presence they had then: left out of elections until they say something else.
    private var silent: [String: GroupPresence?] = [:]
    /// Since when the followed reference has been asked with no answer (local ns).
    private var heardFromReference: Int64?
    /// The other member an election chose to take the role, and since when (local ns). One
    /// that has not taken it within `silenceLimit` never will (a presence no gateway stands
    /// behind): it is passed over, as a silent reference is, until its presence changes.
    private var awaited: (member: String, since: Int64)?
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
    /// Answers waiting out `confirmWindow`, by sequence.
    private var pending: [Int64: TimeSample] = [:]
    /// Sequences answered and used, with when: a second answer to one is a conflict too.
    private var answered: [Int64: Int64] = [:]
    private var conflicts = 0
    private var lastConflictReport: Int64?
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

    /// The local instant the next ask is due, or an answer's window ends, while this member
    /// follows a reference.
    public var nextDue: Int64? {
        guard epoch == nil, reference != nil, connected else { return nil }
        return ([nextAsk] + pending.values.map { $0.received + Self.confirmWindow }).min()
    }

    public mutating func handle(_ input: Input) -> [Effect] {
        var effects: [Effect] = []
        switch input {
        case .connected:
            connected = true
            settled = false
            publishedPresence = nil
            present = [:]
            silent = [:]
            awaited = nil
        case .settled(let now):
            guard connected else { return [] }
            settled = true
            settledAt = now.local
            heardFromReference = now.local
            effects += elect(now)
        case .disconnected:
            connected = false
            settled = false
        case .presence(let id, let presence, let now):
            // This member's own retained presence, as the broker holds it: when it is not what
            // this member published last (a previous run's, or that run's will firing after
            // this one connected), it is published again.
            guard id != member else {
                if presence != publishedPresence { publishedPresence = nil }
                break
            }
            present[id] = presence
            if let was = silent[id], was != presence { silent[id] = nil }
            if settled { effects += elect(now) }
        case .answer(let sequence, let from, let referenceReceived, let referenceSent, let received):
            guard from == reference, epoch == nil else { return [] }
            effects += answer(sequence, TimeSample(sent: 0, referenceReceived: referenceReceived, referenceSent: referenceSent, received: received))
        case .tick(let now):
            effects += confirmAnswers(at: now.local)
            if settled, epoch == nil, let reference, let since = heardFromReference, now.local - since >= Self.silenceLimit {
                silent[reference] = .some(present[reference])
                heardFromReference = now.local
                effects.append(.silentReference(reference))
                effects += elect(now)
            }
            if settled, epoch == nil, reference.map({ present[$0]?.role != .reference || silent[$0] != nil }) ?? true { effects += elect(now) }
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

    /// An answer to an outstanding ask waits out `confirmWindow`; a second answer to the same
    /// ask that disagrees discards it.
    private mutating func answer(_ sequence: Int64, _ answer: TimeSample) -> [Effect] {
        if let waiting = pending[sequence] {
            if waiting.referenceReceived != answer.referenceReceived || waiting.referenceSent != answer.referenceSent {
                pending[sequence] = nil
                return conflicted(at: answer.received)
            }
            return []
        }
        if answered[sequence] != nil { return conflicted(at: answer.received) }
        guard let sent = outstanding.removeValue(forKey: sequence) else { return [] }
        var sample = answer
        sample.sent = sent
        guard sample.isPlausible else { return [] }
        pending[sequence] = sample
        return []
    }

    private mutating func conflicted(at local: Int64) -> [Effect] {
        conflicts += 1
        if let last = lastConflictReport, local - last < Self.conflictReportInterval { return [] }
        lastConflictReport = local
        defer { conflicts = 0 }
        return [.conflictingAnswers(count: conflicts)]
    }

    /// The answers whose window has passed go into the estimate.
    private mutating func confirmAnswers(at local: Int64) -> [Effect] {
        answered = answered.filter { local - $0.value < Self.answerTimeout }
        for (sequence, sample) in pending.sorted(by: { $0.key < $1.key }) where local - sample.received >= Self.confirmWindow {
            pending[sequence] = nil
            answered[sequence] = sample.received
            heardFromReference = max(heardFromReference ?? sample.received, sample.received)
            if estimator.add(sample) { lastSample = sample.received }
        }
        if conflicts > 0, let last = lastConflictReport, local - last >= Self.conflictReportInterval {
            lastConflictReport = local
            defer { conflicts = 0 }
            return [.conflictingAnswers(count: conflicts)]
        }
        return []
    }

    private mutating func elect(_ now: Readings) -> [Effect] {
        let references = present.filter { $0.value.role == .reference && silent[$0.key] == nil }.map(\.key) + (epoch != nil ? [member] : [])
        if let lowest = references.min(by: MemberID.precedes) {
            awaited = nil
            return lowest == member ? [] : follow(lowest, now)
        }
        // Members that start together see each other's presence before one takes the role.
        guard now.local - settledAt >= Self.electionDelay else { return [] }
        let synced = status.isSynced
        let heard = present.filter { silent[$0.key] == nil }
        var candidates = heard.filter { $0.value.synced }.map(\.key) + (synced ? [member] : [])
        if candidates.isEmpty { candidates = Array(heard.keys) + [member] }
        if let chosen = candidates.min(by: MemberID.precedes), chosen != member {
            guard let awaited, awaited.member == chosen else {
                awaited = (chosen, now.local)
                return []
            }
            guard now.local - awaited.since >= Self.silenceLimit else { return [] }
            silent[chosen] = .some(present[chosen])
            self.awaited = nil
            return elect(now)
        }
        awaited = nil
        // Group time goes on from this member's estimate, or starts from its wall clock.
        let start = groupTime(atLocal: now.local) ?? now.realtime
        epoch = GroupInstant.difference(GroupInstant.clamped(start), GroupInstant.clamped(now.local))
        reference = member
        estimator.reset()
        holdover = nil
        outstanding = [:]
        pending = [:]
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
        pending = [:]
        heardFromReference = now.local
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
        // The bound grows with the newest sample's age; a synced member stays so until it
        // passes twice `errorBound` (hysteresis: the status does not flap about the bound).
        let age = local.flatMap { local in lastSample.map { max(0, local - $0) } } ?? 0
        let error = GroupInstant.sum(fit.error, GroupInstant.rounded(Double(age) * Self.dispersionRate))
        let wasSynced = if case .synced(let was, _) = status { was == reference } else { false }
        if error > (wasSynced ? 2 * Self.errorBound : Self.errorBound) {
            return .unsynced(.errorAboveBound(reference: reference, error: error))
        }
        if age > Self.staleAfter {
            return .unsynced(.noAnswer(reference: reference, since: age))
        }
        // Unchanged status while only the numbers move: the log says it once.
        if case .synced(let was, let error) = status, was == reference { return .synced(reference: reference, error: error) }
        return .synced(reference: reference, error: error)
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
