import JSON

/// The answer to `{"command": "version"}`: `{"ok": true, "protocol": 1, "clock": "0.1.0"}`,
/// the protocol's version number and the clock program's own version (what `roundclock
/// --version` prints; the server is given it, this target knows no build).
///
/// The rule (docs/control-protocol.md "Versioning"): additions that an older client can
/// ignore (a new optional member, a new command, a new error text) keep `current`; anything
/// that changes or removes an existing meaning (a member renamed, retyped or dropped, a
/// value's meaning changed, a reply reordered) increments it. Clients ignore members they
/// do not know.
public struct ControlVersion: Sendable, Hashable {
    /// The version of the protocol this code speaks.
    public static let current = 1

    /// The protocol version the clock speaks: a whole number from 1.
    public var protocolVersion: Int
    /// The clock program's version, free text (`0.1.0`, `0.1.0 (development build)`).
    public var clock: String

    public init(protocolVersion: Int = ControlVersion.current, clock: String) {
        self.protocolVersion = protocolVersion
        self.clock = clock
    }

    /// The reply line (without the newline).
    public var line: String {
        JSONValue.object([
            JSONMember("ok", .bool(true)), JSONMember("protocol", .int(protocolVersion)), JSONMember("clock", .string(clock)),
        ]).encoded
    }

    /// Reads a `version` reply (for clients: the gateway, tests); `nil` if the line is not one
    /// (an error reply, a state line, a reply without a whole `protocol` from 1 or a string
    /// `clock`). Members it does not know are ignored.
    public static func parse(_ line: String) -> ControlVersion? {
        guard let value = try? JSONParser(maxBytes: ControlLimits.maxLineBytes, maxDepth: ControlLimits.maxDepth).parse(line),
              value["ok"] == .bool(true), let version = value["protocol"]?.int, version >= 1,
              let clock = value["clock"]?.string else { return nil }
        return ControlVersion(protocolVersion: version, clock: clock)
    }
}
