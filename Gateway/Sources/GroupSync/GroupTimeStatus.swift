import JSON

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
        case .synced(let reference, let error): "synced to the reference \(reference) (within \(Self.milliseconds(error)) ms)"
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

    public static func milliseconds(_ nanoseconds: Int64) -> String {
        let tenths = (nanoseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
