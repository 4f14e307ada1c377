import JSON
import RoundClockCore

/// A program as the TV page (`/display`) needs it to compute every panel text itself: each
/// phase's start and length on the session's running time, how its time panel counts, and
/// the round and phase panels' texts, which stay the same for the whole phase; and the
/// signals, which the page may sound itself.
enum DisplayPlan {
    static func json(_ program: Program, cadence: Cadence) -> JSONValue {
        guard program.kind == .intervals else {
            return .object([JSONMember("kind", .string("clock")), JSONMember("label", .string(FaceBuilder.label(program.label)))])
        }
        let phases = program.phases.indices.map { index in phase(program, index) }
        return .object([
            JSONMember("kind", .string("intervals")),
            JSONMember("label", .string(FaceBuilder.label(program.label))),
            JSONMember("total_ns", program.total.map { .int($0.wholeNanoseconds) } ?? .null),
            JSONMember("counts_rounds", .bool(program.countsRounds)),
            JSONMember("cadence", .string(cadence.rawValue)),
            JSONMember("phases", .array(phases)),
            JSONMember("signals", .array(program.signals.map { point in
                .array([.int(point.offset.wholeNanoseconds), .string(point.signal.rawValue)])
            })),
        ])
    }

    /// One phase: `warn_ns` is the warning window of a work phase (its last `warning`, when
    /// the warning is shorter than the phase), as the clock's warning signal and colour use it.
    static func phase(_ program: Program, _ index: Int) -> JSONValue {
        let phase = program.phases[index]
        let round = program.sets > 1 ? FaceBuilder.setRoundText(set: phase.set, round: phase.round)
            : FaceBuilder.roundText(round: phase.round, of: program.rounds)
        var warning: Duration?
        if phase.kind == .work, let window = program.warning, let length = phase.length, window < length { warning = window }
        return .object([
            JSONMember("kind", .string(phase.kind.rawValue)),
            JSONMember("start_ns", .int(program.starts[index].wholeNanoseconds)),
            JSONMember("length_ns", phase.length.map { .int($0.wholeNanoseconds) } ?? .null),
            JSONMember("counting", .string(phase.counting.rawValue)),
            JSONMember("round", .string(round)),
            JSONMember("phase", .string(FaceBuilder.label(phase.label ?? phase.kind.rawValue))),
            JSONMember("warn_ns", warning.map { .int($0.wholeNanoseconds) } ?? .null),
        ])
    }
}
