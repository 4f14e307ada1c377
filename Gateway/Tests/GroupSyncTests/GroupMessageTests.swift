import ControlProtocol
import Foundation
import GroupSync
import JSON
import Testing
import TestSupport

/// The group session message (docs/sync.md): its bytes, its checks, its order.
@Suite struct GroupMessageTests {
    static let example = #"{"version": 12, "member": "ring1-north", "program": "boxing", "run": "running", "elapsed_before_ns": 0, "anchor_realtime_ns": 1795412345678901234, "issued_realtime_ns": 1795412345678901234}"#

    @Test func theContractsExampleReadsAndWritesBackByteForByte() throws {
        let message = try GroupMessage.parse(Self.example)
        #expect(message.version == 12 && message.member == "ring1-north")
        #expect(message.session == SessionShare(program: "boxing", run: .running, elapsedBeforeNanoseconds: 0,
                                                 anchorRealtimeNanoseconds: 1_795_412_345_678_901_234))
        #expect(message.payload == Self.example)
        #expect(MemberID.sessionTopic(group: "ring1") == "roundclock/group/ring1/session")
    }

    @Test func generatedMessagesSurviveTheRoundTrip() throws {
        let seed = ProcessInfo.processInfo.environment["GROUPSYNC_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("GroupMessageTests.generatedMessagesSurviveTheRoundTrip seed \(seed) (replay: GROUPSYNC_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        let idBytes = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.".utf8)
        for _ in 0..<2000 {
            let run = rng.pick(SessionShare.Run.allCases)
            let member = String(decoding: (0...(rng.next() % 64)).map { _ in rng.pick(idBytes) }, as: UTF8.self)
            let program = rng.pick(["boxing", "tabata", "3 x 1:00/0:10, prep \"x\"\\n", "ü ✓ 🥊", "a\u{1}b"])
            let message = GroupMessage(
                version: Int64(rng.next() % UInt64(GroupMessage.maximumVersion + 1)), member: member,
                session: SessionShare(program: program, run: run,
                                       elapsedBeforeNanoseconds: run == .ready ? 0 : 1 + Int64(rng.next() % UInt64(SessionShare.maximumElapsedNanoseconds)),
                                       anchorRealtimeNanoseconds: run == .running ? Int64(rng.next() % UInt64(GroupInstant.maximum + 1)) : nil),
                issuedRealtimeNanoseconds: Int64(rng.next() % UInt64(GroupInstant.maximum + 1)))
            #expect(MemberID.problem(member) == nil)
            #expect(try GroupMessage.parse(message.payload) == message, "seed \(seed): \(message.payload)")
        }
    }

    /// (version, member) order: higher version first, then the member id byte by byte.
    @Test func theOrderIsVersionThenMemberIdByteWise() throws {
        let session = SessionShare(program: "boxing", run: .ready, elapsedBeforeNanoseconds: 0, anchorRealtimeNanoseconds: nil)
        func m(_ version: Int64, _ member: String, issued: Int64 = 0) -> GroupMessage {
            GroupMessage(version: version, member: member, session: session, issuedRealtimeNanoseconds: issued)
        }
        #expect(m(3, "a") < m(4, "A"))
        #expect(m(4, "B") < m(4, "a"), "'B' (0x42) before 'a' (0x61)")
        #expect(m(4, "a") < m(4, "a.b") && m(4, "a.b") < m(4, "ab"))
        #expect(m(9, "z") < m(10, "a"))
        #expect(m(4, "a", issued: 1) < m(4, "a", issued: 2), "the same (version, member) twice: the later issue wins")
        #expect(!(m(4, "a") < m(4, "a")))
    }

    /// Every payload of the generated corpus is refused with one line; fed to a member, each
    /// gives exactly one log line and changes nothing (no adopt, no publish, same session).
    /// The group reads a session with the clock's own validator (`SessionShare.parse`): what
    /// the clock's `adopt` would refuse is malformed before it reaches a clock.
    @Test func aSessionTheClockWouldRefuseIsMalformed() throws {
        func payload(_ run: String, elapsed: Int64, anchor: String) -> String {
            #"{"version": 3, "member": "m", "program": "boxing", "run": "\#(run)", "elapsed_before_ns": \#(elapsed), "anchor_realtime_ns": \#(anchor), "issued_realtime_ns": 1}"#
        }
        let refused: [(String, String)] = [
            (payload("ready", elapsed: 5, anchor: "null"), "a ready session has \"elapsed_before_ns\" 0"),
            (payload("paused", elapsed: 0, anchor: "null"), "a paused session has \"elapsed_before_ns\" above 0"),
            (payload("running", elapsed: 0, anchor: "null"), "a running session needs \"anchor_realtime_ns\""),
            (payload("paused", elapsed: 9, anchor: "7"), "only a running session has an \"anchor_realtime_ns\""),
            (payload("running", elapsed: SessionShare.maximumElapsedNanoseconds + 1, anchor: "7"), "\"elapsed_before_ns\" must be"),
        ]
        for (line, why) in refused {
            #expect(throws: GroupSyncProblem.self, "\(line)") { try GroupMessage.parse(line) }
            do { _ = try GroupMessage.parse(line) } catch { #expect(error.description.contains(why), "\(error)") }
        }
        #expect(try GroupMessage.parse(payload("paused", elapsed: 9, anchor: "null")).session.run == .paused)
        #expect(try GroupMessage.parse(payload("running", elapsed: SessionShare.maximumElapsedNanoseconds, anchor: "7")).session.run == .running)
        let long = String(repeating: "x", count: SessionShare.maximumProgramBytes + 1)
        #expect(throws: GroupSyncProblem.self) {
            try GroupMessage.parse(payload("ready", elapsed: 0, anchor: "null").replacingOccurrences(of: "boxing", with: long))
        }
    }

    @Test func malformedPayloadsAreIgnoredWithOneLogLineEach() throws {
        let seed = ProcessInfo.processInfo.environment["GROUPSYNC_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("GroupMessageTests.malformedPayloadsAreIgnoredWithOneLogLineEach seed \(seed) (replay: GROUPSYNC_SEED=\(seed))")
        var corpus = MalformedGroupMessages(seed: seed)
        let held = GroupMessage(version: 5, member: "m", session: GroupMemberTests.running, issuedRealtimeNanoseconds: 1)
        var member = GroupMemberTests.member(holding: held)
        var kinds = Set<String>()
        for _ in 0..<3000 {
            let payload = corpus.next()
            let effects = member.handle(.received(payload))
            guard effects.count == 1, case .log(.malformed(let why)) = effects[0] else {
                Issue.record("seed \(seed): \(String(decoding: payload.prefix(300), as: UTF8.self)) gave \(effects)")
                return
            }
            #expect(!why.contains("\n") && GroupLog.malformed(why).description.hasPrefix("group message ignored, malformed: "))
            kinds.insert(String(why.prefix(while: { $0 != ":" && $0 != " " })))
            #expect(member.current == held)
        }
        #expect(kinds.count >= 6, "the corpus reaches several checks: \(kinds.sorted())")
    }
}
