import JSON

/// What the control socket carries out, each as its button would (docs/buttons-and-panels.md).
public enum ControlCommand: Sendable, Hashable {
    /// START pressed and released.
    case start
    /// STOP pressed and released.
    case stop
    /// The reset a held STOP does in a running, paused or finished session.
    case reset
    /// MODE pressed and released: the next program, only while ready or in clock mode.
    case mode
    /// STOP held for the long press, without the wait.
    case holdStop
    /// The current phase ends now (the core's `Action.skip`).
    case skip
    /// The current phase's remaining time changed by `seconds` (negative: taken away),
    /// within 0 ... the phase's length (the core's `Action.adjust`); only while running or
    /// paused.
    case adjust(seconds: Int)
    /// To the start of the current phase, or the previous one within 3 s of a phase's start
    /// (the core's `Action.back`); only while running or paused.
    case back
    /// A program by name (preset or the config's `[programs]`) or a DSL line; like MODE,
    /// only while ready or in clock mode.
    case program(String)
    /// The phone remote's PIN (4 to 12 digits), which the gateway gives the clock: shown on
    /// the panels for `seconds` (1 to 600) if the clock is ready or shows the wall clock, and
    /// remembered for the hold-STOP-press-START gesture (`seconds` 0: remembered only).
    case showPIN(pin: String, seconds: Int)

    /// The `"command"` words of the button commands, in the order docs/control-protocol.md
    /// lists them.
    public static let words = ["start", "stop", "reset", "mode", "hold-stop", "skip", "adjust", "back", "program"]

    /// Whether a phone or MQTT may send it (the gateway forwards only these): every command
    /// but `show-pin`, which only the gateway itself sends.
    public var isButton: Bool {
        if case .showPIN = self { return false }
        return true
    }

    /// The largest `seconds` of an `adjust`, either way (10 minutes).
    public static let adjustLimit = 600

    /// Whether the command changes a running or paused session only (`adjust`, `back`).
    public var editsUnderwaySession: Bool {
        switch self {
        case .adjust, .back: true
        default: false
        }
    }

    public var word: String {
        switch self {
        case .start: "start"
        case .stop: "stop"
        case .reset: "reset"
        case .mode: "mode"
        case .holdStop: "hold-stop"
        case .skip: "skip"
        case .adjust: "adjust"
        case .back: "back"
        case .program: "program"
        case .showPIN: "show-pin"
        }
    }
}

/// One request line: `{"command": "start"}`, `{"command": "program", "program": "tabata"}`,
/// `{"command": "subscribe"}`, `{"command": "version"}`,
/// `{"command": "adopt", "token": 7, "session": {…}}` (docs/control-protocol.md).
public enum ControlRequest: Sendable, Hashable {
    case command(ControlCommand)
    /// The current state now, then one line per display change.
    case subscribe
    /// Replace the session by another clock's (docs/sync.md); `session` has no `adopted`, and
    /// the state lines carry `token` as `adopted` until the session changes again.
    case adopt(token: Int64, session: SessionShare)
    /// The protocol's version and the clock's (`ControlVersion`), so a client can check
    /// that it speaks the clock's protocol.
    case version
    /// The program editor's requests (`ProgramEdit`).
    case edit(ProgramEdit)
    /// The setup page's requests (`SettingsEdit`).
    case settings(SettingsEdit)

    /// Every `"command"` word, in the order of the unknown-command error's list.
    public static let words = ControlCommand.words + ["show-pin", "subscribe", "version", "adopt"] + ProgramEdit.words + SettingsEdit.words

    /// Reads one request line (without its newline). Errors are one line, for the reply.
    public static func parse(_ line: [UInt8]) throws(ControlError) -> ControlRequest {
        let value: JSONValue
        do {
            value = try JSONParser(maxBytes: ControlLimits.maxLineBytes, maxDepth: ControlLimits.maxDepth).parse(line)
        } catch {
            throw ControlError("not JSON: \(error)")
        }
        guard let members = value.members else { throw ControlError("a request is a JSON object, like {\"command\": \"start\"}") }
        guard let command = value["command"] else { throw ControlError("missing \"command\"") }
        guard let word = command.string else { throw ControlError("\"command\" must be a string") }
        let allowed = switch word {
        case "program": ["command", "program"]
        case "adjust": ["command", "seconds"]
        case "show-pin": ["command", "pin", "seconds"]
        case "adopt": ["command", "token", "session"]
        case "program-check", "program-save": ["command", "toml"]
        case "program-delete": ["command", "program"]
        case "settings-set": ["command", "values"]
        default: ["command"]
        }
        if let extra = members.first(where: { !allowed.contains($0.key) }) {
            throw ControlError("unknown member \(JSONValue.quoted(extra.key)) for \(JSONValue.quoted(word))")
        }
        switch word {
        case "start": return .command(.start)
        case "stop": return .command(.stop)
        case "reset": return .command(.reset)
        case "mode": return .command(.mode)
        case "hold-stop": return .command(.holdStop)
        case "skip": return .command(.skip)
        case "adjust": return .command(.adjust(seconds: try adjustSeconds(value["seconds"])))
        case "back": return .command(.back)
        case "show-pin": return .command(try showPIN(value))
        case "subscribe": return .subscribe
        case "version": return .version
        case "program":
            guard let program = value["program"] else { throw ControlError("\"program\" needs a \"program\": a name or a DSL line") }
            guard let spec = program.string, !spec.isEmpty else { throw ControlError("\"program\" must be a non-empty string") }
            return .command(.program(spec))
        case "program-check", "program-save":
            guard let toml = value["toml"] else { throw ControlError("\"\(word)\" needs a \"toml\": a [programs.NAME] snippet") }
            guard let text = toml.string, !text.isEmpty else { throw ControlError("\"toml\" must be a non-empty string") }
            return .edit(word == "program-check" ? .check(toml: text) : .save(toml: text))
        case "program-delete":
            guard let program = value["program"] else { throw ControlError("\"program-delete\" needs a \"program\": a saved program's name") }
            guard let name = program.string, !name.isEmpty else { throw ControlError("\"program\" must be a non-empty string") }
            return .edit(.delete(name: name))
        case "programs":
            return .edit(.list)
        case "settings": return .settings(.show)
        case "settings-set": return .settings(.set(try SettingsEdit.values(value["values"])))
        case "settings-reset": return .settings(.reset)
        case "adopt":
            guard let token = value["token"] else { throw ControlError("\"adopt\" needs a \"token\": a whole number from 0 to \(Int64.max)") }
            guard let session = value["session"] else { throw ControlError("\"adopt\" needs a \"session\" object") }
            return .adopt(token: try SessionShare.token(token, name: "\"token\""), session: try SessionShare.parse(session, withAdopted: false))
        default:
            let known = words.joined(separator: ", ")
            throw ControlError("unknown command \(JSONValue.quoted(word)) (known: \(known))")
        }
    }

    /// An `adjust`'s `"seconds"`: a whole number, not 0, within ±`ControlCommand.adjustLimit`.
    private static func adjustSeconds(_ member: JSONValue?) throws(ControlError) -> Int {
        let limit = ControlCommand.adjustLimit
        let rule = "a whole number of seconds from -\(limit) to \(limit), not 0"
        guard let member else { throw ControlError("\"adjust\" needs a \"seconds\": \(rule)") }
        guard let seconds = member.int, seconds != 0, (-limit...limit).contains(seconds) else {
            throw ControlError("\"seconds\" is \(shown(member)); it must be \(rule)")
        }
        return seconds
    }

    /// A `show-pin`'s `"pin"` (4 to 12 digits) and `"seconds"` (0 to 600).
    private static func showPIN(_ value: JSONValue) throws(ControlError) -> ControlCommand {
        guard let pin = value["pin"]?.string, (4...12).contains(pin.utf8.count), pin.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw ControlError("\"show-pin\" needs a \"pin\": 4 to 12 digits 0-9, as a string")
        }
        guard let seconds = value["seconds"]?.int, (0...600).contains(seconds) else {
            throw ControlError("\"show-pin\" needs \"seconds\": a whole number from 0 (remember it only) to 600")
        }
        return .showPIN(pin: pin, seconds: seconds)
    }

    /// A received value as an error quotes it: its JSON, cut to 40 characters.
    private static func shown(_ value: JSONValue) -> String {
        let text = value.encoded
        return text.count <= 40 ? text : text.prefix(39) + "…"
    }

    /// Reads the UTF-8 of `text`.
    public static func parse(_ text: String) throws(ControlError) -> ControlRequest {
        try parse(Array(text.utf8))
    }

    /// The request as its line (without the newline).
    public var line: String {
        var members = [JSONMember("command", .string(word))]
        if case .command(.program(let spec)) = self { members.append(JSONMember("program", .string(spec))) }
        if case .command(.adjust(let seconds)) = self { members.append(JSONMember("seconds", .int(seconds))) }
        if case .command(.showPIN(let pin, let seconds)) = self { members += [JSONMember("pin", .string(pin)), JSONMember("seconds", .int(seconds))] }
        if case .adopt(let token, let session) = self {
            members += [JSONMember("token", .int(token)), JSONMember("session", session.json(withAdopted: false))]
        }
        switch self {
        case .edit(.check(let toml)), .edit(.save(let toml)): members.append(JSONMember("toml", .string(toml)))
        case .edit(.delete(let name)): members.append(JSONMember("program", .string(name)))
        case .settings(.set(let values)): members.append(JSONMember("values", .object(values)))
        default: break
        }
        return JSONValue.object(members).encoded
    }

    private var word: String {
        switch self {
        case .command(let command): command.word
        case .subscribe: "subscribe"
        case .version: "version"
        case .adopt: "adopt"
        case .edit(let edit): edit.word
        case .settings(let edit): edit.word
        }
    }
}

/// The program editor's requests (docs/control-protocol.md "Program editor"): programs
/// saved in the clock's state directory as `[programs.NAME]` TOML snippets.
public enum ProgramEdit: Sendable, Hashable {
    /// Reads a snippet with the config file's parser and answers its plan, saving nothing.
    case check(toml: String)
    /// Checks a snippet and saves it under its name (replacing a saved one of that name).
    case save(toml: String)
    /// Deletes a saved program.
    case delete(name: String)
    /// The saved programs with their snippets, and the config file's programs.
    case list

    public static let words = ["program-check", "program-save", "program-delete", "programs"]

    public var word: String {
        switch self {
        case .check: "program-check"
        case .save: "program-save"
        case .delete: "program-delete"
        case .list: "programs"
        }
    }
}

/// Why a request line was refused: the reply's `"error"`, one line.
public struct ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
