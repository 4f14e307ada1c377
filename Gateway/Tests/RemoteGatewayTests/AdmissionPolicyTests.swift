@testable import ConnectionAdmission
import Foundation
@testable import GatewayAccess
import TestSupport
import Testing

/// The admission policy on its own: generated sequences of events from strangers, viewers and
/// phones (seeded: the seed is printed, `ROUNDCLOCK_SEED=N` replays it) with the policy's
/// promises checked after every event, and the audit's attacks played as events.
@Suite struct AdmissionPolicyTests {
    typealias Policy = AdmissionPolicy<String>

    static let small = ConnectionBounds(perAddress: 4, total: 12, handshakeTimeout: .seconds(10), headTimeout: .seconds(10),
                                        viewersPerAddress: 2, viewers: 4)

    /// What every decision promises, checked against the state before and after it.
    static func check(_ event: Policy.Event, _ decision: Policy.Decision, before: Policy, after: Policy,
                      _ context: @autoclosure () -> String) {
        let bounds = after.bounds
        let place = { (policy: Policy) in policy.connections }
        let (was, now) = (place(before), place(after))
        #expect(now.count <= bounds.total + 1, "at most one place on trial: \(context())")
        if now.count > bounds.total {
            #expect(now.values.contains { $0.kind.makesRoom }, "only a stranger is over the places: \(context())")
        }
        var strangers: [String: Int] = [:], viewers: [String: Int] = [:]
        for connection in now.values {
            if connection.kind.makesRoom { strangers[connection.client, default: 0] += 1 }
            if connection.kind == .viewer { viewers[connection.client, default: 0] += 1 }
        }
        #expect(strangers.values.allSatisfy { $0 <= bounds.perAddress }, "a client's strangers within its cap: \(context())")
        #expect(viewers.values.allSatisfy { $0 <= bounds.viewersPerAddress }, "a client's viewers within their cap: \(context())")
        #expect(viewers.values.reduce(0, +) <= bounds.viewers, "viewers within their cap: \(context())")

        // Who may be closed, and for whom.
        let phoneEvent: Bool
        switch event {
        case .head(_, .phone), .loggedIn: phoneEvent = true
        default: phoneEvent = false
        }
        for (id, connection) in was where now[id] == nil {
            let own: Bool
            switch event {
            case .head(let e, _), .answered(let e), .loggedIn(let e), .asksToView(let e), .closed(let e): own = e == id
            case .accepted: own = false
            }
            if case .closed = event { continue }
            if connection.kind == .viewer {
                #expect(phoneEvent, "only a phone closes a viewer: \(context())")
            }
            if connection.kind == .phone {
                #expect(own && decision == .refuse(.full), "a phone's connection closed for another: \(context())")
                #expect(!was.contains { $0.key != id && ($0.value.kind.makesRoom || $0.value.kind == .viewer) },
                        "a phone refused while a stranger or viewer held a place: \(context())")
            }
        }
        switch event {
        case .accepted(let id, let client):
            #expect(now[id] != nil, "a new connection is always let in: \(context())")
            if case .keepClosing(let victim, let room) = decision {
                guard let gone = was[victim] else {
                    Issue.record("closed a connection it did not hold: \(context())")
                    return
                }
                #expect(gone.kind.makesRoom, "only a waiting or stranger's connection makes room for a newcomer: \(context())")
                var counts: [String: Int] = [:]
                for connection in was.values where connection.kind.makesRoom { counts[connection.client, default: 0] += 1 }
                counts[client, default: 0] += 1
                if room == .busiestClient {
                    #expect(counts[gone.client]! >= counts.values.max()!, "the busiest client makes room: \(context())")
                } else {
                    #expect(gone.client == client, "the newcomer's own client makes room: \(context())")
                }
                let mates = was.values.filter { $0.client == gone.client && $0.kind.makesRoom }
                #expect(!mates.contains { ($0.busy ? 1 : 0, $0.lastActive) < (gone.busy ? 1 : 0, gone.lastActive) },
                        "the client's idlest makes room: \(context())")
            }
        case .head(_, let head) where head != .phone:
            #expect(was.count - now.count <= 0 || decision == .refuse(.gone), "a stranger's head closes nothing: \(context())")
        case .answered, .asksToView:
            #expect(was.filter { now[$0.key] == nil }.allSatisfy { $0.value.kind.makesRoom }, "\(context())")
        default:
            break
        }
    }

    /// How often a run's events are new connections, phones' heads and closes, in percent:
    /// a run of mostly strangers, one of mostly phones (the table full of phones and viewers,
    /// a newcomer on trial) and one in between.
    struct Mix {
        var accepts: UInt64, phones: UInt64, closes: UInt64
        static let all = [Mix(accepts: 60, phones: 10, closes: 10), Mix(accepts: 10, phones: 60, closes: 3),
                          Mix(accepts: 30, phones: 25, closes: 10)]
    }

    /// A random event for the policy's present state: new connections from a few clients,
    /// heads of each kind, answers, logins, TV pages and closes.
    static func event(_ rng: inout SplitMix64, _ policy: Policy, _ mix: Mix, next: inout UInt64) -> Policy.Event {
        let open = policy.connections.keys.sorted()
        let clients = ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4", "fd00::/64", "phone"]
        guard !open.isEmpty, !rng.chance(mix.accepts) else {
            next += 1
            return .accepted(next, rng.pick(clients))
        }
        // Now and then a connection the policy already closed, whose channel has not heard yet.
        let id = rng.chance(3) ? 1 + rng.next() % next : rng.pick(open)
        if rng.chance(mix.closes) { return .closed(id) }
        switch rng.next() % 5 {
        case 0, 1:
            let phone = policy.connections[id]?.client == "phone" || rng.chance(mix.phones)
            return .head(id, phone ? .phone : rng.pick([.login, .other]))
        case 2: return .answered(id)
        case 3: return rng.chance(30) ? .loggedIn(id) : .answered(id)
        default: return .asksToView(id)
        }
    }

    /// The decision's kind, with its reason: `keepClosing.viewerForPhone`, `refuse.full`.
    static func name(_ decision: Policy.Decision) -> String {
        switch decision {
        case .keep: return "keep"
        case .keepClosing(_, let room): return "keepClosing.\(room)"
        case .refuse(let refusal): return "refuse.\(refusal)"
        }
    }

    @Test func generatedSequencesKeepEveryPromise() {
        let seed = ProcessInfo.processInfo.environment["ROUNDCLOCK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("AdmissionPolicyTests.generatedSequencesKeepEveryPromise seed \(seed) (replay: ROUNDCLOCK_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        var decisions: [String: Int] = [:]
        var overTotal = 0
        for run in 0..<300 {
            var policy = Policy(bounds: Self.small)
            let mix = Mix.all[run % Mix.all.count]
            var next: UInt64 = 0
            for step in 0..<300 {
                let event = Self.event(&rng, policy, mix, next: &next)
                let before = policy
                let decision = policy.decide(event)
                decisions[Self.name(decision), default: 0] += 1
                if policy.connections.count > Self.small.total { overTotal += 1 }
                Self.check(event, decision, before: before, after: policy, "seed \(seed) run \(run) step \(step): \(event) -> \(decision)")
            }
        }
        print("AdmissionPolicyTests.generatedSequencesKeepEveryPromise decisions \(decisions.sorted { $0.key < $1.key }), "
              + "\(overTotal) states over the places")
        // The corpus reaches every kind of decision, and the place on trial.
        #expect(decisions.keys.sorted() == ["keep", "keepClosing.busiestClient", "keepClosing.sameClient",
                                            "keepClosing.viewerForPhone", "refuse.full", "refuse.gone", "refuse.viewers"],
                "seed \(seed): \(decisions)")
        #expect(overTotal > 100, "seed \(seed): \(overTotal) states over the places")
    }

    // MARK: the audit's attacks, as events

    /// An attacker's keep-alive connection: accepted, a head of no session, answered.
    static func keepAlive(_ policy: inout Policy, _ id: UInt64, _ client: String) -> [UInt64] {
        var closed: [UInt64] = []
        for event: Policy.Event in [.accepted(id, client), .head(id, .other), .answered(id)] {
            if case .keepClosing(let victim, _) = policy.decide(event) { closed.append(victim) }
        }
        return closed
    }

    /// 16 clients x 16 keep-alive connections that come back whenever one is closed; meanwhile
    /// a browser from a new address opens six connections and loads the page, logs in and
    /// sends STOP, and a phone with a session sends a command: nothing of theirs is closed.
    @Test func keepAliveStrangersOnEveryPlaceLeaveABrowserItsSixConnections() {
        var policy = Policy(bounds: .standard)
        var next: UInt64 = 0
        var owner: [UInt64: String] = [:]
        func attacker(_ client: String) -> [UInt64] {
            next += 1
            owner[next] = client
            return Self.keepAlive(&policy, next, client)
        }
        for n in 0..<256 { #expect(attacker("192.0.2.\(n % 16 + 1)").isEmpty) }
        #expect(policy.connections.count == 256)
        var browser: [UInt64] = []
        var lost: [UInt64] = []
        // An attacker's connection closed comes back (a few rounds: one closed by its own
        // newcomer would come back for ever).
        func reconnect(_ closed: [UInt64], depth: Int = 0) {
            lost += closed.filter { browser.contains($0) }
            guard depth < 3 else { return }
            for id in closed where !browser.contains(id) { reconnect(attacker(owner[id]!), depth: depth + 1) }
        }
        for _ in 0..<6 {
            next += 1
            browser.append(next)
            if case .keepClosing(let victim, _) = policy.decide(.accepted(next, "198.51.100.7")) { reconnect([victim]) }
        }
        for (id, head) in zip(browser, [Policy.Head.other, .other, .other, .login, .other, .other]) {
            #expect(policy.decide(.head(id, head)) == .keep)
            reconnect(attacker("192.0.2.\(id % 16 + 1)"))
            if head == .login { #expect(policy.decide(.loggedIn(id)) == .keep) }
            #expect(policy.decide(.answered(id)) == .keep)
        }
        #expect(policy.decide(.head(browser[3], .phone)) == .keep, "STOP on the logged-in connection")
        next += 1
        if case .keepClosing(let victim, _) = policy.decide(.accepted(next, "198.51.100.8")) { reconnect([victim]) }
        #expect(policy.decide(.head(next, .phone)) == .keep, "a phone with a session")
        #expect(lost.isEmpty && browser.allSatisfy { policy.connections[$0] != nil }, "the browser kept its six connections")
        #expect(policy.connections.count == 256)
    }

    /// A table full of viewers and strangers: failed logins (a head, then the 401 answered)
    /// close no TV page; a login that succeeds over the places closes a stranger's connection.
    @Test func failedLoginsCloseNoViewer() {
        let bounds = ConnectionBounds(perAddress: 16, total: 40, handshakeTimeout: .seconds(10), headTimeout: .seconds(10),
                                      viewersPerAddress: 4, viewers: 32)
        var policy = Policy(bounds: bounds)
        var next: UInt64 = 0
        for n in 0..<32 {
            next += 1
            _ = Self.keepAlive(&policy, next, "tv-\(n / 4)")
            #expect(policy.decide(.asksToView(next)) == .keep)
        }
        for _ in 0..<8 {
            next += 1
            _ = Self.keepAlive(&policy, next, "192.0.2.1")
        }
        for _ in 0..<18 {
            next += 1
            _ = policy.decide(.accepted(next, "192.0.2.66"))
            _ = policy.decide(.head(next, .login))
            _ = policy.decide(.answered(next))
        }
        #expect(policy.connections.values.count { $0.kind == .viewer } == 32, "no TV page closed")
        // With only viewers and phones, a newcomer is on trial; a failed login leaves after its answer.
        let viewersAndPhones = policy.connections.filter { $0.value.kind.makesRoom }.keys
        for id in viewersAndPhones { _ = policy.decide(.head(id, .phone)) }
        next += 1
        #expect(policy.decide(.accepted(next, "192.0.2.66")) == .keep)
        #expect(policy.connections.count == 41)
        #expect(policy.decide(.head(next, .login)) == .keep)
        #expect(policy.decide(.answered(next)) == .refuse(.full), "the 401 sent, the trial ends")
        next += 1
        _ = policy.decide(.accepted(next, "192.0.2.67"))
        #expect(policy.decide(.head(next, .login)) == .keep)
        guard case .keepClosing(let victim, .viewerForPhone) = policy.decide(.loggedIn(next)) else {
            Issue.record("a login that succeeds takes a viewer's place")
            return
        }
        #expect(victim <= 4, "the oldest viewer of a client with the most")
        #expect(policy.connections.count == 40)
    }

    /// One IPv6 /64 is one client: its strangers share its cap, and a newcomer of the /64 (a
    /// phone sharing the attacker's LAN) closes the /64's idlest, never a busy one first.
    @Test func oneSlash64SharesOneCap() {
        var policy = Policy(bounds: .standard)
        var next: UInt64 = 0
        for _ in 0..<16 {
            next += 1
            _ = policy.decide(.accepted(next, "fd00::/64"))
            _ = policy.decide(.head(next, .login))
        }
        next += 1
        _ = policy.decide(.accepted(next, "fd00::/64"))
        _ = policy.decide(.answered(next))
        next += 1
        #expect(policy.decide(.accepted(next, "fd00::/64")) == .keepClosing(next - 1, .sameClient), "the idle one, not a trickling body")
        #expect(policy.connections.count == 16)
        #expect(policy.decide(.head(next, .login)) == .keep)
        next += 1
        #expect(policy.decide(.accepted(next, "fd00::/64")) == .keepClosing(2, .sameClient), "then the longest in flight")
    }
}
