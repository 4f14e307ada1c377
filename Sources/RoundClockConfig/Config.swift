import RoundClockCore

/// The service configuration (`/etc/roundclock/config.toml`), validated. Every field has
/// a default, so an empty file is a valid configuration; `systemd/config.example.toml`
/// documents every key.
public struct Config: Sendable, Hashable {
    /// Where the configuration came from (a path, or `(built-in defaults)`).
    public var file: String
    /// `board`: which board file to use.
    public var board: BoardSource
    /// `program`: the program selected at start (a preset, a `[programs]` name or a DSL line).
    public var program: Program
    /// `[programs]`: custom programs by name, in name order.
    public var programs: [Program]
    /// `[buttons]`.
    public var buttons: ButtonSettings
    /// `[buzzer]`: one on/off pattern per signal.
    public var buzzer: BuzzerPatterns
    /// `[horn]`: the horn relay's on/off pattern per signal (the board's `[horn]` line).
    public var horn = BuzzerPatterns(Signal.defaultHornPatterns)
    /// `[brightness]`.
    public var brightness: BrightnessSchedule
    /// `[idle] clock_after_minutes`: ready this long → show the wall clock; `nil` = never.
    public var idleClockAfter: Duration?
    /// `[display] on_shutdown`.
    public var onShutdown: ShutdownPicture
    /// `[display] cadence`: `seconds` (the gym display), `live` (hundredths below one
    /// minute) or `minutes` (seconds hidden).
    public var cadence: Cadence = .seconds
    /// `[resume] after_reboot`.
    public var resumeAfterReboot: Bool
    /// `start_at`: times of day at which a ready clock starts its program; `nil`: never.
    public var classStarts: ClassStarts?
    /// `[remote]`: the phone remote's gateway (its own process, `roundclock-gateway`).
    public var remote = RemoteSettings()
    /// `[mqtt]`: the gateway's broker; `nil` = no MQTT.
    public var mqtt: MQTTSettings?
    /// `[sync]`: the group this clock shares its session with; `nil` = none.
    public var sync: SyncSettings?
    /// `[sound]`: the speaker and what each signal sounds like.
    public var sound = SoundSettings()
    /// `[voice]`: spoken callouts.
    public var voice = VoiceSettings()
    /// `[system]`: host name and time zone, applied from the card at boot.
    public var system = SystemSettings()
    /// `[wifi]`: the network the Pi joins, applied from the card at boot; `nil` = none named.
    public var wifi: WifiSettings?

    /// The default configuration file.
    public static let defaultPath = "/etc/roundclock/config.toml"

    /// Built-in defaults: the simulator board, `boxing`.
    public static func defaults(file: String = "(built-in defaults)") -> Config {
        Config(file: file, board: .simulator, program: Presets.boxing, programs: [], buttons: ButtonSettings(),
               buzzer: BuzzerPatterns(), brightness: BrightnessSchedule(), idleClockAfter: nil,
               onShutdown: .blank, resumeAfterReboot: true)
    }

    /// What MODE cycles through: the presets, then the custom programs in name order.
    public var catalog: [Program] { Presets.cycle + programs }

    /// Resolves a program spec as the command line and the state file give it: a custom
    /// program name first, else a preset or DSL line. `nil` if it is neither.
    public func resolveProgram(_ spec: String) -> Program? {
        if let custom = programs.first(where: { $0.name == spec }) { return custom }
        return try? ProgramSpec.parse(spec)
    }
}

/// `board = "simulator"` or a path to a board file.
public enum BoardSource: Sendable, Hashable, CustomStringConvertible {
    /// The built-in simulator board (`boards/simulator.toml`).
    case simulator
    /// A board file; relative paths in the config are resolved against the config's directory.
    case file(String)

    public var description: String {
        switch self {
        case .simulator: "simulator (built in)"
        case .file(let path): path
        }
    }
}

/// `[buttons]`.
public struct ButtonSettings: Sendable, Hashable {
    /// `long_press_ms`, 300–10000, default 2000.
    public var longPress: Duration = .seconds(2)
    /// `debounce_ms`, 0–200, default 30 (a lockout after the first edge, in the button reader; 0 = off).
    public var debounce: Duration = .milliseconds(30)
    public init() {}
}

/// What the panels show after the service stopped: `blank` (every segment off: display
/// RAM all zero) or `last` (the last frame stays lit).
public enum ShutdownPicture: String, Sendable, Hashable, CaseIterable {
    case blank, last
}

/// `[buzzer]` or `[horn]`: per signal, alternating on/off durations starting with "on".
/// An empty pattern is silent.
public struct BuzzerPatterns: Sendable, Hashable {
    public var patterns: [Signal: [Duration]]
    /// `defaults`: the buzzer's unless given (`Signal.defaultHornPatterns` for the horn).
    public init(_ defaults: [Signal: [Duration]] = Signal.defaultBuzzerPatterns) {
        patterns = defaults
    }
    /// The on/off pattern for `signal` (on, off, on, ...); empty = silent.
    public subscript(signal: Signal) -> [Duration] {
        get { patterns[signal] ?? [] }
        set { patterns[signal] = newValue }
    }
    /// Config key of each signal, e.g. `prep_tick_ms`.
    public static func key(_ signal: Signal) -> String {
        signal.rawValue.replacing("-", with: "_") + "_ms"
    }
}

