import I2C
import RoundClockCore

/// A panel went dark (its chip stopped answering) or came back; a power-loss check found
/// a chip that had silently lost power; or a panel was given text it cannot show.
public enum DisplayEvent: Sendable, Hashable, CustomStringConvertible {
    case offline(PanelRole, String)
    case online(PanelRole)
    /// The read-back check found RAM that differs from what was written (detail: which byte).
    case reinitialized(PanelRole, String)
    /// The face's text does not encode on this panel's backpack (the error); the panel keeps
    /// its previous picture. Not an outage: nothing is retried until the face changes.
    case rejected(PanelRole, String)
    public var description: String {
        switch self {
        case let .offline(role, error): "display \(role.rawValue) offline: \(error)"
        case let .online(role): "display \(role.rawValue) online again, re-initialised"
        case let .reinitialized(role, detail): "display \(role.rawValue) lost power (\(detail)): re-initialised"
        case let .rejected(role, error): "display \(role.rawValue) cannot show this picture, keeping the previous one: \(error)"
        }
    }
}

/// The result of showing a face.
public struct DisplayUpdate: Sendable, Hashable {
    /// What each panel that answered now holds.
    public var panels: [PanelReadout]
    /// The panels that did not answer this time, in board order (after a power check:
    /// every panel offline now, the checked one included if it did not answer).
    public var offline: [PanelRole]
    /// Offline/online transitions: once per outage, not once per attempt.
    public var events: [DisplayEvent]
    /// Set while a panel is offline: show the face again after this long.
    public var retryAfter: Duration?
    public init(panels: [PanelReadout], offline: [PanelRole] = [], events: [DisplayEvent] = [], retryAfter: Duration? = nil) {
        self.panels = panels
        self.offline = offline
        self.events = events
        self.retryAfter = retryAfter
    }
}

/// Where faces go: the simulated or real panels. `show` is called when the face differs
/// from the last one fully shown, or when the previous update asked for a retry.
/// `checkPower` is called by the render loop every `powerCheckInterval` (on its clock,
/// after any commit of the same turn), whatever the session's state.
public protocol FaceDisplay: Sendable {
    func show(_ face: Face) async -> DisplayUpdate
    /// Time between two `checkPower` calls; nil: never called.
    var powerCheckInterval: Duration? { get }
    /// Looks for a chip that silently lost power and repairs it. `panels`: those
    /// re-initialised (they show the last face again); `offline`/`events`/`retryAfter`
    /// as for `show` (a chip that does not answer the check is offline).
    func checkPower() async -> DisplayUpdate
}

extension FaceDisplay {
    public var powerCheckInterval: Duration? { nil }
    public func checkPower() async -> DisplayUpdate { DisplayUpdate(panels: []) }
}

/// How `BoardDisplay` looks for chips that lost power between two writes (no transfer
/// failed, so nothing else notices): every panel is checked in one go, at least every
/// `panelPeriod`. The render loop runs the check on the last wake-up before it falls due
/// (riding on a display commit, so a running clock wakes for no check of its own) or wakes
/// for it exactly when due, so a chip is found and fully re-initialised at most
/// `panelPeriod` (2 s) after it answers again (one check later, 4 s, in the 1 in 256 case
/// where the garbage byte read equals the one written).
public struct PowerCheckSchedule: Sendable, Hashable {
    /// Longest time between two checks of the same panel.
    public var panelPeriod: Duration
    /// Every `settingsEvery`-th check of a panel also re-sends its write-only settings
    /// (a brown-out that reset them but kept RAM); on a device that cannot read, every
    /// check re-sends the settings and every `settingsEvery`-th rewrites everything.
    public var settingsEvery: Int
    public init(panelPeriod: Duration, settingsEvery: Int) {
        self.panelPeriod = panelPeriod
        self.settingsEvery = max(1, settingsEvery)
    }
    /// 2 s per panel, settings about every two minutes (60 × 2 s). While the time changes
    /// every second the checks ride on every second change; on the 3-panel simulator board
    /// 3 bytes/s of reads (a check is 2 bytes per panel) plus 0.15 bytes/s of settings
    /// (docs/benchmarks.md).
    public static let standard = PowerCheckSchedule(panelPeriod: .seconds(2), settingsEvery: 60)
}

/// A `BoardDisplay` of one concrete device type, as a `FaceDisplay`: each executable names
/// its boards in one line (`struct EmulatedBoard: ConcreteBoard { let board:
/// BoardDisplay<EmulatedHT16K33> }`), so the render loop's calls through `any FaceDisplay`
/// reach code specialized for that device (cross-module optimization) rather than
/// `BoardDisplay<Device>`'s generic witnesses, which look up type metadata on every call
/// (callgrind shows them).
public protocol ConcreteBoard: FaceDisplay {
    associatedtype Device: I2CDevice
    var board: BoardDisplay<Device> { get }
    init(board: BoardDisplay<Device>)
}

extension ConcreteBoard {
    public func show(_ face: Face) async -> DisplayUpdate { await board.show(face) }
    public var powerCheckInterval: Duration? { board.powerCheckInterval }
    public func checkPower() async -> DisplayUpdate { await board.checkPower() }
}
