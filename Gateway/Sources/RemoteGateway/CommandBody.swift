import FoundationEssentials

/// A `POST /api/command` body checked and re-encoded as one line of the control socket's
/// wire contract: a flat JSON object (strings, numbers, booleans, null) with a string
/// `"command"`, keys sorted, no newline possible inside. Anything else is refused here with
/// a message, before the clock sees it.
public enum CommandBody {
    /// Largest accepted body; a command object is a few dozen bytes.
    public static let maximumBytes = 1024

    enum Scalar: Codable, Equatable {
        case string(String), integer(Int64), number(Double), boolean(Bool), null

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null }
            else if let b = try? c.decode(Bool.self) { self = .boolean(b) }
            else if let i = try? c.decode(Int64.self) { self = .integer(i) }
            else if let d = try? c.decode(Double.self) { self = .number(d) }
            else { self = .string(try c.decode(String.self)) }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .string(let s): try c.encode(s)
            case .integer(let i): try c.encode(i)
            case .number(let d): try c.encode(d)
            case .boolean(let b): try c.encode(b)
            case .null: try c.encodeNil()
            }
        }
    }

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notAFlatObject, noCommand, subscribe
        public var description: String {
            switch self {
            case .notAFlatObject: "the body must be one JSON object of strings, numbers, booleans or null, e.g. {\"command\": \"start\"}"
            case .noCommand: "the object needs a \"command\" string, e.g. {\"command\": \"start\"}"
            case .subscribe: "\"subscribe\" is not a command here; open the WebSocket /api/live for the state lines"
            }
        }
    }

    /// The socket line for `bytes` (at most `maximumBytes`, checked by the caller).
    public static func line(_ bytes: [UInt8]) throws(Problem) -> String {
        let object: [String: Scalar]
        do {
            object = try JSONDecoder().decode([String: Scalar].self, from: Data(bytes))
        } catch {
            throw .notAFlatObject
        }
        guard case .string(let command)? = object["command"] else { throw .noCommand }
        guard command != "subscribe" else { throw .subscribe }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else { throw .notAFlatObject }
        return String(decoding: data, as: UTF8.self)
    }
}
