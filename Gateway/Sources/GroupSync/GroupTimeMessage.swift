import JSON

/// The group-time messages (docs/sync.md "Group time"), QoS 0 and not retained, on
/// `roundclock/group/<group>/time/<member>` (what that member is asked or answered):
///
///     {"ask": 17, "from": "ring1-south"}
///     {"answer": 17, "reference": "ring1-north", "received_ns": 1795…, "sent_ns": 1795…}
///
/// and the members' retained presence on `roundclock/group/<group>/members/<member>`, emptied
/// by the broker (the member's will) when the member leaves:
///
///     {"role": "reference", "synced": true}
public enum GroupTimeMessage: Sendable, Hashable {
    case ask(sequence: Int64, from: String)
    case answer(sequence: Int64, reference: String, received: Int64, sent: Int64)

    public static let maximumBytes = 512

    public var payload: String {
        switch self {
        case .ask(let sequence, let from):
            JSONValue.object([JSONMember("ask", .int(sequence)), JSONMember("from", .string(from))]).encoded
        case .answer(let sequence, let reference, let received, let sent):
            JSONValue.object([JSONMember("answer", .int(sequence)), JSONMember("reference", .string(reference)),
                              JSONMember("received_ns", .int(received)), JSONMember("sent_ns", .int(sent))]).encoded
        }
    }

    /// Reads a payload, or says in one line why it is not one.
    public static func parse(_ bytes: [UInt8]) throws(GroupSyncProblem) -> GroupTimeMessage {
        let value = try GroupJSON.object(bytes, maximumBytes: maximumBytes)
        if let sequence = value["ask"] {
            return .ask(sequence: try GroupJSON.count(sequence, "ask"), from: try GroupJSON.member(value["from"], "from"))
        }
        guard let sequence = value["answer"] else { throw GroupSyncProblem("neither \"ask\" nor \"answer\"") }
        let received = try GroupJSON.instant(value["received_ns"], "received_ns")
        let sent = try GroupJSON.instant(value["sent_ns"], "sent_ns")
        guard sent >= received else { throw GroupSyncProblem("\"sent_ns\" precedes \"received_ns\"") }
        guard sent - received <= GroupInstant.longestTurnaround else {
            throw GroupSyncProblem("\"sent_ns\" is more than \(GroupInstant.longestTurnaround / 1_000_000) ms after \"received_ns\"")
        }
        return .answer(sequence: try GroupJSON.count(sequence, "answer"), reference: try GroupJSON.member(value["reference"], "reference"),
                       received: received, sent: sent)
    }

    public static func askTopic(group: String, member: String) -> String { "roundclock/group/\(group)/time/\(member)" }
}

/// A member's presence in the group (retained): whether it gives the group its time, and
/// whether it has an estimate of it.
public struct GroupPresence: Sendable, Hashable {
    public enum Role: String, Sendable, Hashable { case reference, member }
    public var role: Role
    public var synced: Bool

    public init(role: Role, synced: Bool) {
        self.role = role
        self.synced = synced
    }

    public var payload: String {
        JSONValue.object([JSONMember("role", .string(role.rawValue)), JSONMember("synced", .bool(synced))]).encoded
    }

    /// `nil` for an empty payload: the member left (its will, or its goodbye).
    public static func parse(_ bytes: [UInt8]) throws(GroupSyncProblem) -> GroupPresence? {
        guard !bytes.isEmpty else { return nil }
        let value = try GroupJSON.object(bytes, maximumBytes: GroupTimeMessage.maximumBytes)
        guard let role = value["role"]?.string.flatMap(Role.init(rawValue:)) else {
            throw GroupSyncProblem("\"role\" must be \"reference\" or \"member\"")
        }
        guard case .bool(let synced)? = value["synced"] else { throw GroupSyncProblem("\"synced\" must be true or false") }
        return GroupPresence(role: role, synced: synced)
    }

    public static func topic(group: String, member: String) -> String { "roundclock/group/\(group)/members/\(member)" }
    public static func filter(group: String) -> String { "roundclock/group/\(group)/members/+" }

    /// The member id a presence topic names, if it is one of `group`'s.
    public static func member(inTopic topic: String, group: String) -> String? {
        let prefix = "roundclock/group/\(group)/members/"
        guard topic.hasPrefix(prefix) else { return nil }
        let id = String(topic.dropFirst(prefix.count))
        return MemberID.problem(id) == nil ? id : nil
    }
}

/// Reading the JSON objects of the group's topics: at most `maximumBytes`, an object.
enum GroupJSON {
    static func object(_ bytes: [UInt8], maximumBytes: Int, maxDepth: Int = 2) throws(GroupSyncProblem) -> JSONValue {
        guard bytes.count <= maximumBytes else { throw GroupSyncProblem("\(bytes.count) bytes, more than \(maximumBytes)") }
        let value: JSONValue
        do {
            value = try JSONParser(maxBytes: maximumBytes, maxDepth: maxDepth).parse(bytes)
        } catch {
            throw GroupSyncProblem("not JSON: \(error)")
        }
        guard value.members != nil else { throw GroupSyncProblem("not a JSON object") }
        return value
    }

    static func count(_ value: JSONValue?, _ name: String) throws(GroupSyncProblem) -> Int64 {
        guard let number = value?.int, number >= 0 else { throw GroupSyncProblem("\"\(name)\" must be a non-negative whole number") }
        return Int64(number)
    }

    /// An instant of group time: whole nanoseconds in `GroupInstant`'s range.
    static func instant(_ value: JSONValue?, _ name: String) throws(GroupSyncProblem) -> Int64 {
        guard let number = value?.int, let instant = Int64(exactly: number), GroupInstant.contains(instant) else {
            throw GroupSyncProblem("\"\(name)\" must be whole nanoseconds from 0 to \(GroupInstant.maximum)")
        }
        return instant
    }

    static func member(_ value: JSONValue?, _ name: String) throws(GroupSyncProblem) -> String {
        guard let id = value?.string else { throw GroupSyncProblem("\"\(name)\" must be a string") }
        if let why = MemberID.problem(id) { throw GroupSyncProblem("\"\(name)\" \(why)") }
        return id
    }
}
