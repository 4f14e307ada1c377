import ControlProtocol
import JSON
import RoundClockCore

/// The program a clock link's state lines run, as the clock itself defined it: the last
/// `definition` the clock sent (docs/control-protocol.md "The program's definition"), never a
/// name looked up in the gateway's own config. A line naming another program, and any line
/// after the link's unreachable line until a definition comes again (a reconnect's first line
/// brings it), has none: an older clock sends no definition.
package struct RunningProgram: Sendable {
    private var kept: Program?
    /// Counts the definitions that differed from the one kept: a save over the program shown
    /// changes this, not the name.
    package private(set) var changes = 0

    package init() {}

    /// After `state` (`nil`: a line that is no state line, such as the unreachable line) the
    /// program that runs, or `nil` when the clock did not say.
    package mutating func update(_ state: ControlState?) -> Program? {
        guard let state else {
            kept = nil
            return nil
        }
        if let definition = state.definition, definition != kept {
            kept = definition
            changes += 1
        }
        return kept?.name == state.program ? kept : nil
    }
}

/// A clock link's latest line as a new subscriber of its hub gets it: a state line of the
/// program the clock last defined carries that definition, as the clock's own first line to a
/// subscriber does, so a page or service that subscribes late still knows the program.
struct LatestLine: Sendable {
    private var line: String?
    /// The program the clock last defined, and its definition as a state line's member.
    private var defined: (program: String, member: String)?
    private var lacksDefinition = false

    mutating func update(_ line: String) {
        self.line = line
        guard let state = ControlState.parse(line) else {
            defined = nil
            lacksDefinition = false
            return
        }
        if let definition = state.definition { defined = (state.program, ProgramDefinition.json(definition).encoded) }
        lacksDefinition = state.definition == nil && defined?.program == state.program
    }

    var first: String? {
        guard let line, lacksDefinition, let defined else { return line }
        return String(line.dropLast()) + #", "definition": "# + defined.member + "}"
    }
}
