import ControlProtocol
import JSON

/// The group reads sessions with the clock's own type and validator (`SessionShare`,
/// docs/control-protocol.md "The session"; docs/sync.md): a session the clock would refuse
/// to adopt (a ready one with running time, a paused one without) is malformed here too.
/// Sessions held by the group have no `adopted`: it belongs to one clock's state line.
extension SessionShare {
    /// Longest program spec accepted (a DSL line is a few dozen bytes).
    public static let maximumProgramBytes = 1024

    /// Reads the session's members out of `object` (other members are the caller's business:
    /// a group message's own, or a newer clock's additions) with `SessionShare.parse`, plus
    /// this side's limit on the program's length. `adopted` is read only `withAdopted`. The
    /// error is one line naming the member.
    public static func read(from object: JSONValue, withAdopted: Bool = false) throws(GroupSyncProblem) -> SessionShare {
        if let spec = object["program"]?.string, spec.utf8.count > maximumProgramBytes {
            throw GroupSyncProblem("\"program\" must be a non-empty string of at most \(maximumProgramBytes) bytes")
        }
        let names = withAdopted ? memberNames : memberNames.filter { $0 != "adopted" }
        let known = JSONValue.object(names.compactMap { name in object[name].map { JSONMember(name, $0) } })
        do {
            return try SessionShare.parse(known, withAdopted: withAdopted)
        } catch {
            throw GroupSyncProblem(error.description)
        }
    }
}

/// What is wrong with a group message, a state line's session or an adopt reply: one line.
public struct GroupSyncProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
