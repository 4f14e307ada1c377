import ClockLink
import ControlProtocol
import JSON

/// A program editor body (`POST /api/editor/check`, `save`: `{"toml": "…"}`; `delete`:
/// `{"program": "NAME"}`) or a setup page body (`POST /api/settings`: `{"values": {…}}`;
/// `/api/settings/reset`: `{}`) checked by the clock's own parser (`ControlRequest`) and re-encoded
/// as the socket's one line; the refusal's words are the clock's. The gateway only forwards:
/// the clock checks the program and keeps its own files.
public enum EditorBody {
    /// Largest accepted body: the socket's longest request line, which the TOML must fit in.
    public static let maximumBytes = ControlLimits.maxLineBytes

    /// The editor's routes under `/api/editor/`, each with its socket command.
    public static let commands = ["check": "program-check", "save": "program-save", "delete": "program-delete"]
    /// The setup page's routes under `/api/`: `{"values": {"brightness.day": 9}}`, `{}`.
    public static let settingsCommands = ["settings": "settings-set", "settings/reset": "settings-reset"]

    /// The socket line for `bytes` posted to `/api/editor/ROUTE`.
    public static func line(_ bytes: [UInt8], route: String) throws(CommandBody.Problem) -> String {
        guard let word = commands[route] ?? settingsCommands[route] else { throw .refused("unknown editor route \(JSONValue.quoted(route))") }
        let value: JSONValue
        do {
            value = try JSONParser(maxBytes: maximumBytes, maxDepth: 3).parse(bytes)
        } catch {
            throw .refused("not JSON: \(error)")
        }
        let example = switch word {
        case "program-delete": #"{"program": "NAME"}"#
        case "settings-set": #"{"values": {"brightness.day": 9}}"#
        case "settings-reset": "{}"
        default: #"{"toml": "[programs.NAME]\n…"}"#
        }
        guard let members = value.members else { throw .refused("the body must be a JSON object, like \(example)") }
        if let command = members.first(where: { $0.key == "command" }) {
            throw .refused("unknown member \"command\" (the route says it: \(word)); got \(command.value.encoded)")
        }
        // The command's name makes the line longer than the body: it must still fit in one.
        let encoded = JSONValue.object([JSONMember("command", .string(word))] + members).encoded
        guard encoded.utf8.count <= ControlLimits.maxLineBytes else {
            throw .refused("the request is \(encoded.utf8.count) bytes as the clock's line; at most \(ControlLimits.maxLineBytes)")
        }
        let request: ControlRequest
        do {
            request = try ControlRequest.parse(encoded)
        } catch {
            throw .refused(error.description)
        }
        switch request {
        case .edit, .settings: break
        default: throw .refused("not an editor request")
        }
        return request.line
    }
}
