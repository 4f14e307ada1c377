import JSON
import RoundClockCore

/// The running program on a state line (`definition`, docs/control-protocol.md "The
/// program's definition"): what rebuilds the clock's `Program` exactly, so a viewer computes
/// the phases, times and signals the panels show, whatever its own config says the name means.
///
///     {"kind": "intervals", "label": "JMPS", "countdown_beeps": 3, "phases": [
///      {"kind": "prep", "length_ns": 5000000000, "round": 0},
///      {"kind": "work", "length_ns": 7000000000, "round": 1, "label": "JUMP", "callout": "jumps"}]}
///
/// A member at its default is left out: `counting` `down`, `set` 0, no `label`, `callout` or
/// `halfway`, `start` as the kind has it (`start` for work, none otherwise; `null`: none).
public enum ProgramDefinition {
    public static func json(_ program: Program) -> JSONValue {
        guard program.kind == .intervals else {
            return .object([JSONMember("kind", .string("clock")), JSONMember("label", .string(program.label))])
        }
        var members = [JSONMember("kind", .string("intervals")), JSONMember("label", .string(program.label))]
        if let warning = program.warning { members.append(JSONMember("warning_ns", .int(warning.wholeNanoseconds))) }
        if let beeps = program.countdownBeeps { members.append(JSONMember("countdown_beeps", .int(beeps))) }
        if program.countsRounds { members.append(JSONMember("counts_rounds", .bool(true))) }
        members.append(JSONMember("phases", .array(program.phases.map(phaseJSON))))
        return .object(members)
    }

    /// The program named `name` (the state line's `program`) that `value` defines; `nil` if
    /// `value` is not a definition or defines no valid program (`Program`'s own checks).
    public static func parse(_ value: JSONValue, name: String) -> Program? {
        guard let label = value["label"]?.string else { return nil }
        switch value["kind"]?.string {
        case "clock"?: return Program.wallClock.named(name)
        case "intervals"?: break
        default: return nil
        }
        guard let warning = optionalNanoseconds(value["warning_ns"]), let beeps = optionalInt(value["countdown_beeps"]),
              let countsRounds = optionalBool(value["counts_rounds"]), case .array(let list)? = value["phases"] else { return nil }
        var phases: [Phase] = []
        for item in list {
            guard let phase = phase(item) else { return nil }
            phases.append(phase)
        }
        return try? Program(name: name, label: label, phases: phases, warning: warning.value, countdownBeeps: beeps.value,
                            countsRounds: countsRounds.value ?? false)
    }

    static func phaseJSON(_ phase: Phase) -> JSONValue {
        var members = [
            JSONMember("kind", .string(phase.kind.rawValue)),
            JSONMember("length_ns", phase.length.map { .int($0.wholeNanoseconds) } ?? .null),
            JSONMember("round", .int(phase.round)),
        ]
        if phase.counting != .down { members.append(JSONMember("counting", .string(phase.counting.rawValue))) }
        if phase.set != 0 { members.append(JSONMember("set", .int(phase.set))) }
        if let label = phase.label { members.append(JSONMember("label", .string(label))) }
        if let callout = phase.callout { members.append(JSONMember("callout", .string(callout))) }
        if phase.startSignal != Phase(phase.kind, length: nil, round: 0).startSignal {
            members.append(JSONMember("start", phase.startSignal.map { .string($0.rawValue) } ?? .null))
        }
        if let halfway = phase.halfwaySignal { members.append(JSONMember("halfway", .string(halfway.rawValue))) }
        return .object(members)
    }

    static func phase(_ value: JSONValue) -> Phase? {
        guard let kind = value["kind"]?.string.flatMap(PhaseKind.init(rawValue:)),
              let length = optionalNanoseconds(value["length_ns"]),
              let round = value["round"]?.int, (0...TimeLimits.maximumRounds).contains(round),
              let counting = value["counting"].map({ $0.string.flatMap(Counting.init(rawValue:)) }) ?? .down,
              let set = optionalInt(value["set"]), (0...TimeLimits.maximumSets).contains(set.value ?? 0),
              let label = optionalString(value["label"]), let callout = optionalString(value["callout"]),
              let halfway = optionalSignal(value["halfway"]) else { return nil }
        var phase = Phase(kind, length: length.value, counting: counting, round: round)
        phase.set = set.value ?? 0
        phase.label = label.value
        phase.callout = callout.value
        phase.halfwaySignal = halfway.value
        if let start = value["start"] {
            guard let signal = optionalSignal(start) else { return nil }
            phase.startSignal = signal.value
        }
        return phase
    }

    /// A member that may be absent or `null`: `.init(value: nil)` then; `nil` if it has
    /// another type than `read` takes.
    struct Member<Wrapped> {
        var value: Wrapped?
    }

    private static func optional<T>(_ value: JSONValue?, _ read: (JSONValue) -> T?) -> Member<T>? {
        guard let value, value != .null else { return Member(value: nil) }
        return read(value).map { Member(value: $0) }
    }

    static func optionalNanoseconds(_ value: JSONValue?) -> Member<Duration>? {
        optional(value) { $0.int.map { Duration.nanoseconds(Int64($0)) } }
    }

    static func optionalInt(_ value: JSONValue?) -> Member<Int>? { optional(value) { $0.int } }
    static func optionalString(_ value: JSONValue?) -> Member<String>? { optional(value) { $0.string } }
    static func optionalSignal(_ value: JSONValue?) -> Member<Signal>? {
        optional(value) { $0.string.flatMap(Signal.init(rawValue:)) }
    }

    static func optionalBool(_ value: JSONValue?) -> Member<Bool>? {
        optional(value) { (json: JSONValue) -> Bool? in
            guard case .bool(let flag) = json else { return nil }
            return flag
        }
    }
}
