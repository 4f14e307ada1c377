import ControlProtocol
import RoundClockCore

/// What the render loop takes from its inbox: a button edge (GPIO, keyboard, scripts) or a
/// control socket command, each with the instant it arrived.
public enum LoopInput<Instant: InstantProtocol & Sendable>: Sendable, Hashable where Instant.Duration == Duration {
    case button(ButtonEvent<Instant>)
    case command(ControlCommand, at: Instant)
    /// The control socket's `adopt`: a session mapped onto the loop's clock on arrival.
    case adopt(AdoptedSession<Instant>, at: Instant)
    /// The programs MODE cycles, after a program was saved or deleted (the control socket's
    /// `program-save`, `program-delete`).
    case catalog([Program], at: Instant)
    /// The settings of the setup page's layer, after it changed (the control socket's
    /// `settings-set`, `settings-reset`).
    case settings(ClockSettings, at: Instant)

    public var at: Instant {
        switch self {
        case .button(let event): event.at
        case .command(_, let at): at
        case .adopt(_, let at): at
        case .catalog(_, let at): at
        case .settings(_, let at): at
        }
    }
}

/// An `adopt` command as the loop takes it: the session already mapped onto its clock
/// (`SessionAdoption.session`, the clocks read once, on arrival), what was adopted (shared
/// verbatim in the state lines, `adopted` = the token, until the session changes again), and
/// the log line's text (token, wall clock sync state).
public struct AdoptedSession<Instant: InstantProtocol & Sendable>: Sendable, Hashable where Instant.Duration == Duration {
    public var session: Session<Instant>
    public var share: SessionShare
    public var note: String

    public init(session: Session<Instant>, share: SessionShare, note: String) {
        self.session = session
        self.share = share
        self.note = note
    }
}

extension Controller {
    /// Applies one input: a button edge as it is, a command as its button does it
    /// (docs/buttons-and-panels.md): `start`, `stop` and `mode` are a press and a release of their
    /// button, `hold-stop` a long press of STOP; `reset` and `skip` are the actions a held
    /// STOP and a held MODE carry out; `adjust` and `back` the live edits; `program`, like MODE, only while ready or in clock mode.
    public mutating func apply(_ input: LoopInput<Instant>) -> [Occurrence<Instant>] {
        switch input {
        case .button(let event): return handle(event)
        case .command(let command, let at): return carry(command, at: at)
        case .adopt(let adopted, let at): return adopt(adopted.session, at: at, note: adopted.note)
        case .catalog(let programs, let at): return replaceCatalog(programs, at: at)
        case .settings(let settings, let at): return take(settings, at: at)
        }
    }

    private mutating func carry(_ command: ControlCommand, at arrived: Instant) -> [Occurrence<Instant>] {
        hidePIN()
        switch command {
        case .start: return click(.start, at: arrived)
        case .stop: return click(.stop, at: arrived)
        case .mode: return click(.mode, at: arrived)
        case .holdStop: return hold(.stop, at: arrived)
        case .showPIN(let pin, let seconds): return showPIN(pin, for: .seconds(seconds), at: arrived)
        case .reset, .skip, .adjust, .back, .program:
            // Never before what the controller has already processed (as `handle` does).
            let out = advance(to: arrived)
            let now = processedUntil ?? arrived
            switch command {
            case .reset: return out + perform(.reset, at: now)
            case .skip: return out + perform(.skip, at: now)
            case .adjust(let seconds): return out + perform(.adjust(seconds: seconds), at: now)
            case .back: return out + perform(.back, at: now)
            case .program(let spec):
                guard program.kind == .wallClock || session.state(at: now) == .ready else { return out }
                return out + perform(.program(spec), at: now)
            default: return out
            }
        }
    }

    /// A press and a release of `button` at one instant.
    private mutating func click(_ button: Button, at instant: Instant) -> [Occurrence<Instant>] {
        handle(ButtonEvent(button, .press, at: instant)) + handle(ButtonEvent(button, .release, at: instant))
    }
}
