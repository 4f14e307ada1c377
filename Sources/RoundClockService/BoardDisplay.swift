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

/// A panel went dark (its chip stopped answering) or came back.
public enum DisplayEvent: Sendable, Hashable, CustomStringConvertible {
    case offline(PanelRole, String)
    case online(PanelRole)
    public var description: String {
        switch self {
        case let .offline(role, error): "display \(role.rawValue) offline: \(error)"
        case let .online(role): "display \(role.rawValue) online again, re-initialised"
        }
    }
}

/// The result of showing a face.
public struct DisplayUpdate: Sendable, Hashable {
    /// What each panel that answered now holds.
    public var panels: [PanelReadout]
    /// The panels that did not answer this time, in board order.
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
public protocol FaceDisplay: Sendable {
    func show(_ face: Face) async -> DisplayUpdate
}

/// Blink of the whole panel while paused: HT16K33 display setup B1B0 = 10 (1 Hz).
let pausedBlink = Blink.oneHertz

/// The panels of a board, each driven by an `HT16K33Driver` over its own device. The
/// face is encoded with the panel's backpack layout and committed; only changed bytes
/// and settings go on the wire. A panel whose chip stops answering (unplugged, EIO,
/// NACK/ENXIO) is marked offline while the others keep going; it is retried with
/// backoff (0.1 s doubling to 1 s) and, once it answers, fully re-initialised (its RAM
/// and settings were lost) before it shows the current face.
public actor BoardDisplay<Device: I2CDevice>: FaceDisplay {
    private struct Panel {
        let spec: PanelSpec
        var driver: HT16K33Driver<Device>
        var offline = false
        var failedAttempts = 0
    }
    private var panels: [Panel]
    /// Dimming used at start-up; each face carries its own level afterwards.
    public let brightness: UInt8
    /// Read RAM back after each commit (costs a 16-byte read per commit on a real bus).
    public let readBack: Bool

    /// `devices` are already open, one per panel, in the same order as `specs`.
    public init(specs: [PanelSpec], devices: sending [Device], brightness: UInt8 = 15, readBack: Bool = true) {
        panels = zip(specs, devices).map { Panel(spec: $0, driver: HT16K33Driver(device: $1)) }
        self.brightness = min(brightness, 15)
        self.readBack = readBack
    }

    /// Start-up on every panel: oscillator on, RAM cleared, display on, dimming. A panel
    /// that does not answer is reported offline and retried by `show`.
    public func start() -> [DisplayEvent] {
        var events: [DisplayEvent] = []
        for index in panels.indices {
            do {
                try panels[index].driver.start(brightness: brightness)
            } catch {
                events.append(markOffline(index, error))
            }
        }
        return events
    }

    public func show(_ face: Face) async -> DisplayUpdate {
        var update = DisplayUpdate(panels: [])
        for index in panels.indices {
            let spec = panels[index].spec
            let panel = face[spec.role]
            do {
                let frame = try Frame(panel.text, kind: spec.kind, brightness: face.brightness,
                                      blink: panel.blinking ? pausedBlink : .off)
                if panels[index].offline { try panels[index].driver.reinitialize() }
                try panels[index].driver.commit(ram: frame.ram(), brightness: frame.brightness,
                                                blink: BlinkRate(bits: frame.blink.rawValue))
                if panels[index].offline {
                    panels[index].offline = false
                    panels[index].failedAttempts = 0
                    update.events.append(.online(spec.role))
                }
                update.panels.append(try readout(index))
            } catch let error as I2CError {
                let event = markOffline(index, error)
                if panels[index].failedAttempts == 1 { update.events.append(event) }
                update.offline.append(spec.role)
            } catch {
                // Text the backpack cannot show: boards are checked when loaded, so this
                // is a programming error; report it like an outage rather than crash.
                if panels[index].failedAttempts == 0 { update.events.append(.offline(spec.role, "\(error)")) }
                panels[index].failedAttempts += 1
                update.offline.append(spec.role)
            }
        }
        let waits = panels.filter { $0.failedAttempts > 0 }.map { Self.backoff(attempts: $0.failedAttempts) }
        update.retryAfter = waits.min()
        return update
    }

    /// Rewrites every panel completely (a chip that lost power).
    public func reinitialize() throws(I2CError) {
        for index in panels.indices { try panels[index].driver.reinitialize() }
    }

    /// Gives `body` the devices, e.g. to read traffic counters of emulated chips.
    public func inspect<R: Sendable>(_ body: ([Device]) -> R) -> R {
        body(panels.map(\.driver.device))
    }

    /// 0.1 s, 0.2 s, 0.4 s, 0.8 s, then 1 s.
    static func backoff(attempts: Int) -> Duration {
        .milliseconds(min(1000, 100 << min(max(attempts - 1, 0), 4)))
    }

    /// Marks panel `index` offline; the event is new only on the first failure.
    private func markOffline(_ index: Int, _ error: any Error) -> DisplayEvent {
        panels[index].offline = true
        panels[index].failedAttempts += 1
        return .offline(panels[index].spec.role, "\(error)")
    }

    private func readout(_ index: Int) throws -> PanelReadout {
        let panel = panels[index]
        var state = panel.driver.target
        if readBack {
            if let full = panel.driver.device as? DisplayReadback {
                state = try full.readDisplayState()
            } else if let ramOnly = panel.driver.device as? DisplayRAMReadback {
                state.ram = try ramOnly.readDisplayRAM()
            }
        }
        let text = (try? Frame(ram: state.ram, kind: panel.spec.kind).text) ?? "?"
        return PanelReadout(role: panel.spec.role, kind: panel.spec.kind, text: text, ram: state.ram,
                            brightness: state.brightness, blink: Blink(bits: state.blink.rawValue),
                            displayOn: state.displayOn)
    }
}
