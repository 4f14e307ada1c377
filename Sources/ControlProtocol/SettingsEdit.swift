import JSON

/// The setup page's requests (docs/control-protocol.md "Settings"): the settings it saves in
/// the clock's state directory, laid over the config file.
public enum SettingsEdit: Sendable, Hashable {
    /// The page's settings, the merged ones the page shows, and a change still waiting.
    case show
    /// Sets each member's key (`"brightness.day": 9`); `null` removes it (back to the file's).
    /// Checked together as `check-config` checks a file: all are taken, or none.
    case set([JSONMember])
    /// Drops every setting of the page: the config file alone again.
    case reset

    public static let words = ["settings", "settings-set", "settings-reset"]
    /// The most keys one `settings-set` carries.
    public static let maxValues = 32

    public var word: String {
        switch self {
        case .show: "settings"
        case .set: "settings-set"
        case .reset: "settings-reset"
        }
    }

    /// A `settings-set`'s `"values"`: an object of 1 to `maxValues` members.
    static func values(_ member: JSONValue?) throws(ControlError) -> [JSONMember] {
        let rule = "an object of 1 to \(maxValues) settings, e.g. {\"brightness.day\": 9}"
        guard let member else { throw ControlError("\"settings-set\" needs \"values\": \(rule)") }
        guard let values = member.members, (1...maxValues).contains(values.count) else { throw ControlError("\"values\" must be \(rule)") }
        return values
    }
}
