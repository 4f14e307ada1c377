/// The lines a member logs (docs/sync.md), one per event.
public enum GroupLog: Sendable, Hashable, CustomStringConvertible {
    case adopted(GroupMessage)
    /// A received message lower than `current`; the current one is republished.
    case stale(GroupMessage, current: GroupMessage)
    /// A payload on the group topic that is not a group message: why.
    case malformed(String)
    case published(GroupMessage, PublishReason)
    /// A local change while the broker is away: published when it is back, if still higher.
    case keptWhileAway(GroupMessage)
    /// The clock came (back) with another session than the group's: given the group's.
    case clockRestored(GroupMessage)
    case adoptFailed(token: Int64, reason: String)

    public enum PublishReason: Sendable, Hashable {
        case localChange, republished, keptWhileAway, brokerHeldNone
    }

    public var description: String {
        switch self {
        case .adopted(let message): "group session adopted: \(message.summary)"
        case .stale(let message, let current):
            "group message ignored, stale: \(message.summary) is older than \(current.summary); republished the current one"
        case .malformed(let why): "group message ignored, malformed: \(why)"
        case .published(let message, let why):
            switch why {
            case .localChange: "local change published: \(message.summary)"
            case .republished: "group session republished: \(message.summary)"
            case .keptWhileAway: "local change made while the broker was away published: \(message.summary)"
            case .brokerHeldNone: "the broker held no group session; published this clock's: \(message.summary)"
            }
        case .keptWhileAway(let message): "local change kept until the broker is back: \(message.summary)"
        case .clockRestored(let message): "the clock shows another session than the group's; adopting \(message.summary)"
        case .adoptFailed(let token, let reason): "adopt \(token) failed: \(reason)"
        }
    }
}
