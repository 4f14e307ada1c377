import JSON
import RoundClockCore

/// What a subscriber receives, on one line per display change, in the frames file's words:
/// `{"state": "running", "phase": "work", "round": 1, "rounds": 12, "program": "boxing",
/// "brightness": 15, "panels": {"time": " 2:58", "round": " 1", "phase": "WORK"}}`.
public struct ControlState: Sendable, Hashable {
    /// `ready`, `running`, `paused`, `finished` or `clock`.
    public var state: String
    /// `prep`, `work`, `rest` or `clock`.
    public var phase: String
    public var round: Int
    public var rounds: Int
    /// The program's name (a preset, a `[programs]` name, or the DSL line it was given as).
    public var program: String
    /// The panels' brightness, 0-15 (HT16K33 dimming set).
    public var brightness: Int
    /// Each panel's role and the text it shows (decoded from its RAM), in the board's order.
    public var panels: [Panel]
    /// The stored session (docs/control-protocol.md "The session"); `nil` only on lines of a
    /// clock that does not share it (written without the member).
    public var session: SessionShare?
    /// Whether the clock keeps the session in its state directory; `nil` on lines of a clock
    /// that keeps none (written without the member).
    public var persistence: Persistence?
    /// The running program's definition (`ProgramDefinition`), named `program`: on a
    /// subscriber's first line and on each line whose program differs from the one before
    /// (another program, or the same name saved over); `nil` on the others and on lines of a
    /// clock that does not send it (written without the member).
    public var definition: Program?
    /// A setting the clock could not take (the card's refused `roundclock.toml`), one line
    /// naming the file, the line and what is wrong; `nil`: none (written without the member).
    public var notice: String?

    /// `{"on": true}`, or `{"on": false, "reason": "..."}` while the state directory cannot be
    /// written (the reason names the file and the errno).
    public struct Persistence: Sendable, Hashable {
        public var on: Bool
        public var reason: String?
        public init(on: Bool, reason: String? = nil) {
            self.on = on
            self.reason = reason
        }

        public var json: JSONValue {
            var members = [JSONMember("on", .bool(on))]
            if let reason { members.append(JSONMember("reason", .string(reason))) }
            return .object(members)
        }

        /// Reads the member; `nil` if `on` is not a boolean or `reason` not a string.
        public static func parse(_ value: JSONValue) -> Persistence? {
            guard case .bool(let on)? = value["on"] else { return nil }
            guard let reason = value["reason"] else { return Persistence(on: on) }
            return reason.string.map { Persistence(on: on, reason: $0) }
        }
    }

    public struct Panel: Sendable, Hashable {
        public var role: String
        public var text: String
        public init(role: String, text: String) {
            self.role = role
            self.text = text
        }
    }

    public init(state: String, phase: String, round: Int, rounds: Int, program: String, brightness: Int, panels: [Panel],
                session: SessionShare? = nil, persistence: Persistence? = nil, definition: Program? = nil,
                notice: String? = nil) {
        self.state = state
        self.phase = phase
        self.round = round
        self.rounds = rounds
        self.program = program
        self.brightness = brightness
        self.panels = panels
        self.session = session
        self.persistence = persistence
        self.definition = definition
        self.notice = notice
    }

    public var json: JSONValue {
        var members: [JSONMember] = [
            JSONMember("state", .string(state)), JSONMember("phase", .string(phase)),
            JSONMember("round", .int(round)), JSONMember("rounds", .int(rounds)),
            JSONMember("program", .string(program)), JSONMember("brightness", .int(brightness)),
            JSONMember("panels", .object(panels.map { JSONMember($0.role, .string($0.text)) })),
        ]
        if let session { members.append(JSONMember("session", session.json())) }
        if let persistence { members.append(JSONMember("persistence", persistence.json)) }
        if let definition { members.append(JSONMember("definition", ProgramDefinition.json(definition))) }
        if let notice { members.append(JSONMember("notice", .string(notice))) }
        return .object(members)
    }

    /// The state as its line (without the newline).
    public var line: String { json.encoded }

    /// Reads a state line (for clients); `nil` if it is not one (also when its `session`,
    /// `persistence` or `definition` is malformed: `SessionShare.parse` says why). Members it
    /// does not know, on the line or in its `session`, are ignored: a newer clock may add them
    /// (docs/control-protocol.md "Versioning").
    public static func parse(_ line: String) -> ControlState? {
        guard let value = try? JSONParser(maxBytes: 64 * 1024).parse(line),
              let state = value["state"]?.string, let phase = value["phase"]?.string,
              let round = value["round"]?.int, let rounds = value["rounds"]?.int,
              let program = value["program"]?.string, let brightness = value["brightness"]?.int,
              let members = value["panels"]?.members else { return nil }
        var panels: [Panel] = []
        for member in members {
            guard let text = member.value.string else { return nil }
            panels.append(Panel(role: member.key, text: text))
        }
        var session: SessionShare?
        if let value = value["session"] {
            let known = value.members.map { JSONValue.object($0.filter { SessionShare.memberNames.contains($0.key) }) } ?? value
            guard let share = try? SessionShare.parse(known, withAdopted: true) else { return nil }
            session = share
        }
        var persistence: Persistence?
        if let value = value["persistence"] {
            guard let read = Persistence.parse(value) else { return nil }
            persistence = read
        }
        var definition: Program?
        if let value = value["definition"] {
            guard let read = ProgramDefinition.parse(value, name: program) else { return nil }
            definition = read
        }
        var notice: String?
        if let value = value["notice"] {
            guard let text = value.string else { return nil }
            notice = text
        }
        return ControlState(state: state, phase: phase, round: round, rounds: rounds, program: program, brightness: brightness,
                            panels: panels, session: session, persistence: persistence, definition: definition,
                            notice: notice)
    }
}
