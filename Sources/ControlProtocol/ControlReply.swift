import JSON

/// The answer to a request line: `{"ok": true}` or `{"ok": false, "error": "…"}` (a `version`
/// reply is an `ok` one with more members: `ControlVersion`).
public enum ControlReply: Sendable, Hashable {
    case ok
    case failed(String)

    public var line: String {
        switch self {
        case .ok: JSONValue.object([JSONMember("ok", .bool(true))]).encoded
        case .failed(let why): JSONValue.object([JSONMember("ok", .bool(false)), JSONMember("error", .string(why))]).encoded
        }
    }

    /// Reads a reply line (for clients: the gateway, tests); `nil` if it is not one.
    public static func parse(_ line: String) -> ControlReply? {
        guard let value = try? JSONParser(maxBytes: ControlLimits.maxReplyBytes).parse(line), case .bool(let ok)? = value["ok"] else { return nil }
        if ok { return .ok }
        return value["error"]?.string.map(ControlReply.failed)
    }
}

/// The control socket's limits (docs/control-protocol.md "Limits").
public enum ControlLimits {
    /// Longest request line, in bytes without its newline; a longer one is answered with an
    /// error and skipped up to its newline.
    public static let maxLineBytes = 4096
    /// Longest reply line a client reads: the editor's `programs` carries up to 64 KiB of
    /// saved TOML, escaped, with each program's plan.
    public static let maxReplyBytes = 256 * 1024
    /// Arrays and objects nested deeper than this are refused.
    public static let maxDepth = 8
    /// Connections served at once; one more is answered with an error and closed.
    public static let maxClients = 32
    /// Editor requests (`program-check`, …) of one connection that may wait for their replies;
    /// one more is refused, so a client that never reads cannot pile work up.
    public static let maxEditsWaiting = 4
    /// Bytes waiting to be sent to one client. A subscriber with more than this pending is
    /// dropped (it fell behind); a client that sends requests without reading its replies
    /// is no longer read while half of this is pending.
    public static let maxPendingBytes = 256 * 1024
    /// The socket's file name in the service's runtime directory (`RuntimeDirectory=roundclock`).
    public static let socketName = "control.sock"
    /// The group allowed to connect (mode 0660), when it exists.
    public static let group = "roundclock-remote"
}
