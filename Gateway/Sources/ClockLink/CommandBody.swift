import ControlProtocol

/// A `POST /api/command` body checked by the clock's own parser (`ControlRequest`, the
/// socket's wire contract) and re-encoded as its one line, so no newline or anything the
/// clock would refuse ever reaches the socket; the refusal's words are the clock's.
public enum CommandBody {
    /// Largest accepted body; a command object is a few dozen bytes.
    public static let maximumBytes = 1024

    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// What the wire contract says is wrong (`unknown command "fly" (known: …)`).
        case refused(String)
        /// A request only the socket's own clients make (`subscribe`, `version`, `adopt`, `show-pin`).
        case notAButton
        public var description: String {
            switch self {
            case .refused(let why): why
            case .notAButton:
                "only the button commands (\(ControlCommand.words.joined(separator: ", "))) are taken here; "
                    + "the state lines come over the WebSocket /api/live"
            }
        }
    }

    /// The socket line for `bytes` (at most `maximumBytes`, checked by the caller).
    public static func line(_ bytes: [UInt8]) throws(Problem) -> String {
        let request: ControlRequest
        do {
            request = try ControlRequest.parse(bytes)
        } catch {
            throw .refused(error.description)
        }
        guard case .command(let command) = request, command.isButton else { throw .notAButton }
        return request.line
    }
}
