import BoardSpec
import Hex
import RoundClockCore
import SegmentDisplay

/// A board: which backpacks sit where on I2C, and which GPIO lines the buttons, the
/// buzzer, the stack light and the horn use. Boards are data (`boards/*.toml`), not code.
public struct Board: Sendable, Hashable {
    public var name: String
    public var description: String
    /// `/dev/i2c-N`.
    public var i2cBus: Int
    public var panels: [PanelSpec]
    /// GPIO line names (`GPIO17`) or `chip:offset`, per button.
    public var buttons: [Button: String]
    /// Buttons pull the line to ground when pressed (the usual wiring).
    public var buttonsActiveLow: Bool
    /// Line bias: `pull-up`, `pull-down`, `disabled` or `as-is`.
    public var buttonBias: String
    /// Buzzer or relay output line, if any.
    public var buzzer: String?
    public var buzzerActiveLow: Bool
    /// Stack light output lines (`[lights]`), per lamp; each lamp is optional.
    public var lights: [Lamp: String] = [:]
    /// The stack light's relays switch on with a low line.
    public var lightsActiveLow = false
    /// Horn relay output line (`[horn]`), if any.
    public var horn: String?
    public var hornActiveLow = false
    /// The custom layouts defined in `[layouts]`, by name (used by panels or not).
    public var layouts: [LayoutKind] = []

    public var hasModeButton: Bool { buttons[.mode] != nil }

    /// Digits of the time and round panels (4 where the board has no round panel).
    public var panelWidths: PanelWidths {
        PanelWidths(time: panels.first { $0.role == .time }?.kind.positions ?? 4,
                    round: panels.first { $0.role == .round }?.kind.positions ?? 4)
    }
}

public enum BoardFile {
    /// The top-level keys that hold values; the others are tables.
    package static let topLevelValueKeys = ["name", "description"]

    /// Reads and validates a board file's text.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> Board {
        try parse(text, file: file, recorder: nil)
    }

    /// `parse(_:file:)`, noting every key path it asks for in `recorder`.
    package static func parse(_ text: String, file: String, recorder: KeyPathRecorder?) throws(ConfigError) -> Board {
        var root = try TOMLReader.parse(text, file: file, recorder: recorder)
        root.topLevelValueKeys = topLevelValueKeys
        let name = try root.requiredString("name")
        let description = try root.string("description") ?? ""

        var i2c = try root.table("i2c")
        let bus = try i2c?.int("bus", in: 0...255) ?? 1
        try i2c?.finish()

        let layouts = try customLayouts(&root)
        let kinds = LayoutKind.allCases + layouts
        var panels: [PanelSpec] = []
        for var entry in try root.tables("panels") {
            let roleName = try entry.choice("role", PanelRole.allCases.map(\.rawValue))
            let kindName = try entry.choice("kind", kinds.map(\.rawValue))
            guard let roleName, let role = PanelRole(rawValue: roleName) else { throw entry.fail("role", "missing; one of time, round, phase") }
            guard let kindName, let kind = kinds.first(where: { $0.rawValue == kindName }) else {
                throw entry.fail("kind", "missing; one of \(kinds.map(\.rawValue).joined(separator: ", "))")
            }
            guard let address = try entry.i2cAddress("address", in: 0x70...0x77) else { throw entry.fail("address", "missing; an HT16K33 address 0x70 to 0x77") }
            try entry.finish()
            let spec = PanelSpec(role: role, kind: kind, address: UInt8(address))
            if let clash = panels.first(where: { $0.role == role }) {
                throw entry.fail("role", "a \(clash.role.rawValue) panel is already defined; each role once")
            }
            if panels.contains(where: { $0.address == spec.address }) {
                throw entry.fail("address", "0x\(hex(spec.address)) is used by another panel")
            }
            try check(spec, entry: entry)
            panels.append(spec)
        }
        guard panels.contains(where: { $0.role == .time }) else {
            throw ConfigError(file: file, location: "panels", message: "a board needs a panel with role = \"time\"")
        }

        var buttons: [Button: String] = [:]
        var activeLow = true
        var bias = "pull-up"
        if var table = try root.table("buttons") {
            for button in Button.allCases {
                if let line = try lineName(button.rawValue, in: &table) { buttons[button] = line }
            }
            activeLow = try table.bool("active_low") ?? true
            bias = try table.choice("bias", ["pull-up", "pull-down", "disabled", "as-is"]) ?? "pull-up"
            try table.finish()
        }
        var buzzer: String?
        var buzzerActiveLow = false
        if var table = try root.table("buzzer") {
            buzzer = try lineName("line", in: &table, required: true)
            buzzerActiveLow = try table.bool("active_low") ?? false
            try table.finish()
        }
        var board = Board(name: name, description: description, i2cBus: bus, panels: panels, buttons: buttons,
                          buttonsActiveLow: activeLow, buttonBias: bias, buzzer: buzzer, buzzerActiveLow: buzzerActiveLow,
                          layouts: layouts)
        try outputLines(&root, into: &board)
        try root.finish()
        try checkEachLineOnce(board, file: file)
        return board
    }

    /// `[layouts.NAME]` tables, in name order (`LayoutFile`); a name may not be a built-in's.
    private static func customLayouts(_ root: inout TOMLReader) throws(ConfigError) -> [LayoutKind] {
        guard var table = try root.table("layouts") else { return [] }
        var layouts: [LayoutKind] = []
        for name in table.claimAllKeys() {
            guard !name.isEmpty, name.count <= 24, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw table.fail(name, "\"\(name)\" is not a usable layout name; use 1 to 24 ASCII letters, digits, '-' or '_'")
            }
            guard LayoutKind(rawValue: name) == nil else {
                throw table.fail(name, "\"\(name)\" is a built-in layout; give the custom one another name")
            }
            guard var layout = try table.table(name) else { continue }
            layouts.append(try LayoutFile.parse(name: name, &layout))
        }
        return layouts
    }

    /// Every text the role can show must be showable by the backpack, or the board is
    /// rejected now rather than failing mid-round.
    static func check(_ spec: PanelSpec, entry: TOMLReader) throws(ConfigError) {
        let samples: [String]
        switch spec.role {
        case .time: samples = PanelWidths.timeSamples(digits: spec.kind.positions)
        case .round: samples = PanelWidths.roundSamples(digits: spec.kind.positions)
        case .phase: samples = ["PREP", "WORK", "REST", "DONE"] + Presets.cycle.map { FaceBuilder.label($0.label) } + ["CUST"]
        }
        for sample in samples {
            do {
                _ = try Frame(sample, kind: spec.kind)
            } catch {
                throw entry.fail("kind", "a \(spec.kind.rawValue) cannot be the \(spec.role.rawValue) panel: it cannot show \"\(sample)\" (\(error))")
            }
        }
    }

    /// `boards/simulator.toml`, built in so that `simulate` works from any directory.
    public static let simulatorText = """
        # The simulator's board: three panels on one bus, three buttons.
        name = "simulator"
        description = "Simulated clock: time, round and phase panels, START/STOP/MODE buttons"

        [i2c]
        bus = 1

        [[panels]]
        role = "time"
        kind = "seg7x4"
        address = 0x70

        [[panels]]
        role = "round"
        kind = "seg7x4"
        address = 0x71

        [[panels]]
        role = "phase"
        kind = "seg14x4"
        address = 0x72

        [buttons]
        start = "GPIO17"
        stop = "GPIO27"
        mode = "GPIO22"
        active_low = true
        bias = "pull-up"

        """

    /// The built-in simulator board.
    public static func simulator() throws(ConfigError) -> Board {
        try parse(simulatorText, file: "boards/simulator.toml (built in)")
    }
}
