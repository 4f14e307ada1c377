import ControlProtocol
import JSON

/// The group's session message (docs/sync.md), retained on
/// `roundclock/group/<group>/session` with QoS 1:
///
///     {"version": 12, "member": "ring1-north", "program": "boxing", "run": "running",
///      "elapsed_before_ns": 0, "anchor_realtime_ns": 1795412345678901234,
///      "issued_realtime_ns": 1795412345678901234}
///
/// Messages are ordered by (version, member): a higher version wins, an equal version is
/// broken by the member id in byte order (higher wins). Two different messages with the same
/// (version, member) only arise when a member's gateway restarted and counted again from 0;
/// the later `issued_realtime_ns`, then the encoded bytes, decide those, so the order is total
/// and every member picks the same winner.
public struct GroupMessage: Sendable, Hashable, Comparable {
    public var version: Int64
    public var member: String
    public var session: SessionShare
    /// When the member issued this version (CLOCK_REALTIME nanoseconds); kept verbatim when
    /// the message is republished.
    public var issuedRealtimeNanoseconds: Int64

    /// `session`'s `adopted` is dropped: it belongs to one clock's state line.
    public init(version: Int64, member: String, session: SessionShare, issuedRealtimeNanoseconds: Int64) {
        var session = session
        session.adopted = nil
        self.version = version
        self.member = member
        self.session = session
        self.issuedRealtimeNanoseconds = issuedRealtimeNanoseconds
    }

    /// Largest payload accepted: 4 KiB (a message is about 250 bytes).
    public static let maximumBytes = 4096
    /// Highest version: 2^53 - 1, the largest whole number every JSON reader keeps exactly.
    public static let maximumVersion: Int64 = (1 << 53) - 1

    public var json: JSONValue {
        .object([JSONMember("version", .int(version)), JSONMember("member", .string(member))] + session.members(withAdopted: false)
                + [JSONMember("issued_realtime_ns", .int(issuedRealtimeNanoseconds))])
    }

    /// The payload: one line of JSON, no newline.
    public var payload: String { json.encoded }

    /// Reads a payload. Refused, with one line saying why: more than 4 KiB, not JSON, not an
    /// object, a member missing or of the wrong type or out of range, a member id that is
    /// not `MemberID`-safe. Members this version does not know are ignored, so a newer
    /// member's additions do not make its messages unreadable here.
    public static func parse(_ bytes: [UInt8]) throws(GroupSyncProblem) -> GroupMessage {
        let value = try GroupJSON.object(bytes, maximumBytes: maximumBytes, maxDepth: 4)
        guard let version = value["version"]?.int, (0...Int(maximumVersion)).contains(version) else {
            throw GroupSyncProblem("\"version\" must be a whole number in 0...\(maximumVersion)")
        }
        guard let member = value["member"]?.string else { throw GroupSyncProblem("\"member\" must be a string") }
        if let why = MemberID.problem(member) { throw GroupSyncProblem("\"member\" \(why)") }
        let session = try SessionShare.read(from: value)
        if let anchor = session.anchorRealtimeNanoseconds, !GroupInstant.contains(anchor) {
            throw GroupSyncProblem("\"anchor_realtime_ns\" must be whole nanoseconds from 0 to \(GroupInstant.maximum)")
        }
        let issued = try GroupJSON.instant(value["issued_realtime_ns"], "issued_realtime_ns")
        return GroupMessage(version: Int64(version), member: member, session: session, issuedRealtimeNanoseconds: issued)
    }

    public static func parse(_ text: String) throws(GroupSyncProblem) -> GroupMessage {
        try parse(Array(text.utf8))
    }

    public static func < (a: GroupMessage, b: GroupMessage) -> Bool {
        if a.version != b.version { return a.version < b.version }
        if a.member != b.member { return MemberID.precedes(a.member, b.member) }
        if a.issuedRealtimeNanoseconds != b.issuedRealtimeNanoseconds { return a.issuedRealtimeNanoseconds < b.issuedRealtimeNanoseconds }
        return Array(a.payload.utf8).lexicographicallyPrecedes(b.payload.utf8)
    }

    /// "version 12 from ring1-north (running boxing)", for log lines.
    public var summary: String { "version \(version) from \(member) (\(session.run.rawValue) \(session.program))" }
}

/// Member ids and group names: they are MQTT topic levels (MQTT 3.1.1 §4.7: no `/`, `+`,
/// `#` or NUL), so they are held to 1-64 ASCII letters, digits, `-`, `_` and `.`.
public enum MemberID {
    public static let maximumBytes = 64

    /// Why `id` is not safe, or `nil` when it is.
    public static func problem(_ id: String) -> String? {
        if id.isEmpty { return "is empty" }
        if id.utf8.count > maximumBytes { return "is longer than \(maximumBytes) bytes" }
        if let bad = id.utf8.first(where: { !isSafe($0) }) {
            return "may hold only ASCII letters, digits, '-', '_' and '.', not byte 0x" + String(bad, radix: 16, uppercase: true)
        }
        return nil
    }

    static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
        default: false
        }
    }

    /// Member ids in byte order: how ties between messages and the choice of the reference
    /// are decided alike on every member.
    public static func precedes(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(b.utf8) }

    /// The group's retained session topic, `roundclock/group/<group>/session`; `group` must be safe.
    public static func sessionTopic(group: String) -> String { "roundclock/group/\(group)/session" }
}
