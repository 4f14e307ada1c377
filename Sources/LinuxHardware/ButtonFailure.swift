import Platform
import RoundClockCore

/// A failure of the button reader at run time, for the journal.
public enum ButtonFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// This button's line failed; the button is ignored until the service restarts.
    case line(Button, SystemError)
    /// Every line failed (each reported as `.line`): the reader ended.
    case allLinesFailed(Int)

    public var description: String {
        switch self {
        case let .line(button, error): "button \(button.rawValue): \(error); ignored until restart"
        case let .allLinesFailed(count): "all \(count) button lines failed; button reader stopped"
        }
    }
}
