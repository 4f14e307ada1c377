import HT16K33
import RoundClockCore
import SegmentDisplay

/// One panel of a board: what it shows, which backpack it is, where it sits on the bus.
public struct PanelSpec: Sendable, Hashable {
    public var role: PanelRole
    public var kind: LayoutKind
    /// 7-bit I2C address, 0x70...0x77.
    public var address: UInt8
    public init(role: PanelRole, kind: LayoutKind, address: UInt8) {
        self.role = role
        self.kind = kind
        self.address = address
    }
}

/// What a panel holds after a commit: read back from the chip where it can be (emulated
/// chip, i2c-stub), else what the driver wrote. `text` is decoded from `ram`.
public struct PanelReadout: Sendable, Hashable {
    public var role: PanelRole
    public var kind: LayoutKind
    public var text: String
    public var ram: [UInt8]
    /// Dimming level 0...15 (HT16K33 dimming set 0xE0 | level).
    public var brightness: UInt8
    public var blink: Blink
    public var displayOn: Bool
}

/// Blink of the whole panel while paused: HT16K33 display setup B1B0 = 10 (1 Hz).
let pausedBlink = Blink.oneHertz

/// The panels of a board, each driven by an `HT16K33Driver` over its own device. The
/// face is encoded with the panel's backpack layout and committed; only changed bytes
/// and settings go on the wire.
public actor BoardDisplay<Device: I2CDevice>: FaceDisplay {
    private struct Panel {
        let spec: PanelSpec
        var driver: HT16K33Driver<Device>
    }
    private var panels: [Panel]
    public private(set) var brightness: UInt8

    /// `devices` are already open, one per panel, in the same order as `specs`.
    public init(specs: [PanelSpec], devices: sending [Device], brightness: UInt8 = 15) {
        panels = zip(specs, devices).map { Panel(spec: $0, driver: HT16K33Driver(device: $1)) }
        self.brightness = min(brightness, 15)
    }

    /// Start-up sequence on every panel: oscillator on, RAM cleared, display on, dimming.
    public func start() throws(I2CError) {
        for index in panels.indices {
            try panels[index].driver.start(brightness: brightness)
        }
    }

    /// Brightness for the next commit (HT16K33 dimming, 0...15).
    public func setBrightness(_ level: UInt8) { brightness = min(level, 15) }

    public func show(_ face: Face) async throws -> [PanelReadout] {
        var readouts: [PanelReadout] = []
        for index in panels.indices {
            let spec = panels[index].spec
            let panel = face[spec.role]
            let frame = try Frame(panel.text, kind: spec.kind, brightness: brightness,
                                  blink: panel.blinking ? pausedBlink : .off)
            try panels[index].driver.commit(ram: frame.ram(), brightness: frame.brightness,
                                            blink: BlinkRate(bits: frame.blink.rawValue))
            readouts.append(try readout(index))
        }
        return readouts
    }

    /// Rewrites every panel completely (a chip that lost power).
    public func reinitialize() throws(I2CError) {
        for index in panels.indices { try panels[index].driver.reinitialize() }
    }

    /// Gives `body` the devices, e.g. to read traffic counters of emulated chips.
    public func inspect<R: Sendable>(_ body: ([Device]) -> R) -> R {
        body(panels.map(\.driver.device))
    }

    private func readout(_ index: Int) throws -> PanelReadout {
        let panel = panels[index]
        let state = try (panel.driver.device as? DisplayReadback)?.readDisplayState() ?? panel.driver.target
        let text = (try? Frame(ram: state.ram, kind: panel.spec.kind).text) ?? "?"
        return PanelReadout(role: panel.spec.role, kind: panel.spec.kind, text: text, ram: state.ram,
                            brightness: state.brightness, blink: Blink(bits: state.blink.rawValue),
                            displayOn: state.displayOn)
    }
}
