import ControlProtocol
import JSON
import RoundClockCore

/// The program editor's reply lines (docs/control-protocol.md "Program editor").
enum ProgramReplies {
    /// A plan lists at most this many phases (`phase_count` says how many there are).
    static let maxPhases = 500

    /// `{"ok": true, ...members}`, members in the order given.
    static func ok(_ members: KeyValuePairs<String, JSONValue>) -> String {
        JSONValue.object([JSONMember("ok", .bool(true))] + members.map { JSONMember($0.key, $0.value) }).encoded
    }

    /// A program's plan: name, label, the plan in one line, the total (`47:10`, `20:10+` with
    /// overtime) and in seconds (`null` when open-ended), and its phases in order.
    static func json(_ program: Program) -> JSONValue {
        let phases = program.phases.prefix(maxPhases).map { phase in
            JSONValue.object([
                JSONMember("kind", .string(phase.kind.rawValue)),
                JSONMember("label", phase.label.map(JSONValue.string) ?? .null),
                JSONMember("seconds", phase.length.map { .int(Int($0.components.seconds)) } ?? .null),
                JSONMember("count", .string(phase.counting.rawValue)),
                JSONMember("round", .int(phase.round)),
                JSONMember("set", .int(phase.set)),
            ])
        }
        return .object([
            JSONMember("name", .string(program.name)),
            JSONMember("label", .string(program.label)),
            JSONMember("plan", .string(program.plan)),
            JSONMember("total", .string(program.totalDescription)),
            JSONMember("total_seconds", program.total.map { .int(Int($0.components.seconds)) } ?? .null),
            JSONMember("phase_count", .int(program.phases.count)),
            JSONMember("phases", .array(Array(phases))),
        ])
    }

    /// The saved program a save replaced: its name, plan and total, as it was.
    static func replaced(_ program: Program) -> JSONValue {
        .object([
            JSONMember("name", .string(program.name)),
            JSONMember("plan", .string(program.plan)),
            JSONMember("total", .string(program.totalDescription)),
        ])
    }

    /// One entry of the `programs` reply: where it comes from, its plan and total, and a
    /// saved one's snippet.
    static func listed(_ program: Program, source: String, toml: String?) -> JSONValue {
        var members = [
            JSONMember("name", .string(program.name)),
            JSONMember("source", .string(source)),
            JSONMember("plan", .string(program.plan)),
            JSONMember("total", .string(program.totalDescription)),
        ]
        if let toml { members.append(JSONMember("toml", .string(toml))) }
        return .object(members)
    }
}
