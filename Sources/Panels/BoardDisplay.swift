import BoardSpec
import HT16K33
import I2C
import RoundClockCore
import SegmentDisplay

/// What a panel holds after a commit: read back from the chip where it can be (emulated
/// chip, i2c-stub), else what the driver wrote. `text` is decoded from `ram`.
public struct PanelReadout: Sendable, Hashable {
    public var role: PanelRole
    public var kind: LayoutKind
    public var text: String
    public var ram: [UInt8]
    /// Dimming level 0...15 (HT16K33 dimming set 0xE0 | level).
    public var brightness: UInt8
    public var blink: BlinkRate
    public var displayOn: Bool

    public init(role: PanelRole, kind: LayoutKind, text: String, ram: [UInt8], brightness: UInt8, blink: BlinkRate, displayOn: Bool) {
        self.role = role
        self.kind = kind
        self.text = text
        self.ram = ram
        self.brightness = brightness
        self.blink = blink
        self.displayOn = displayOn
    }
}

/// Blink of the whole panel while paused: HT16K33 display setup B1B0 = 10 (1 Hz).
let pausedBlink = BlinkRate.oneHertz

/// The panels of a board, each driven by an `HT16K33Driver` over its own device. The
/// face is encoded with the panel's backpack layout and committed; only changed bytes
/// and settings go on the wire. A panel whose chip stops answering (unplugged, EIO,
/// NACK/ENXIO) is marked offline while the others keep going; it is retried with
/// backoff (0.1 s doubling to 1 s) and, once it answers, fully re-initialised (its RAM
/// and settings were lost) before it shows the current face. A chip that lost power
/// between two writes fails nothing: `checkPower` finds it (see `PowerCheckSchedule`).
public actor BoardDisplay<Device: I2CDevice>: FaceDisplay {
    /// Everything about each panel but its driver, in board order.
    private var panels: [BoardPanel]
    /// The driver of each panel, in the same order: the only generic part, so that the
    /// bookkeeping above is compiled for concrete types whatever the device (as
    /// `HT16K33Shadow` is in the driver).
    private var drivers: [HT16K33Driver<Device>]
    /// Dimming used at start-up; each face carries its own level afterwards.
    public let brightness: UInt8
    /// Read RAM back after each commit (costs a 16-byte read per commit on a real bus).
    public let readBack: Bool
    /// nil: no power checks.
    public let powerChecks: PowerCheckSchedule?
    /// `powerChecks.panelPeriod`: every panel is checked at each check.
    public nonisolated let powerCheckInterval: Duration?

    /// `devices` are already open, one per panel, in the same order as `specs`.
    public init(specs: [PanelSpec], devices: sending [Device], brightness: UInt8 = 15, readBack: Bool = true,
                powerChecks: PowerCheckSchedule? = .standard) {
        panels = zip(specs, devices).map { spec, _ in BoardPanel(spec: spec) }
        drivers = zip(specs, devices).map { _, device in HT16K33Driver(device: device) }
        self.brightness = min(brightness, 15)
        self.readBack = readBack
        self.powerChecks = powerChecks
        powerCheckInterval = min(specs.count, devices.count) > 0 ? powerChecks?.panelPeriod : nil
    }

    /// Start-up on every panel: oscillator on, RAM cleared, display on, dimming. A panel
    /// that does not answer is reported offline and retried by `show`.
    public func start() -> [DisplayEvent] {
        var events: [DisplayEvent] = []
        for index in panels.indices {
            do {
                try drivers[index].start(brightness: brightness)
            } catch {
                events.append(markOffline(index, error))
            }
        }
        return events
    }

    public func show(_ face: Face) async -> DisplayUpdate {
        var update = DisplayUpdate(panels: [])
        update.panels.reserveCapacity(panels.count)
        for index in panels.indices {
            let spec = panels[index].spec
            let panel = face[spec.role]
            do {
                let ram = try panels[index].codec.ram(for: panel.text)
                if panels[index].offline { try drivers[index].reinitialize() }
                try drivers[index].commit(ram: ram, brightness: face.brightness,
                                                blink: panel.blinking ? pausedBlink : .off)
                if panels[index].offline {
                    panels[index].offline = false
                    panels[index].failedAttempts = 0
                    update.events.append(.online(spec.role))
                }
                panels[index].rejected = nil
                update.panels.append(try readout(index))
            } catch let error as I2CError {
                failed(index, error, into: &update)
            } catch {
                // Text the backpack cannot show: boards are checked when loaded, so this is a
                // programming error. Not an outage: retrying the same face cannot help, so no
                // retry is asked for; the panel keeps its picture, reported once per error.
                if panels[index].rejected != "\(error)" { update.events.append(.rejected(spec.role, "\(error)")) }
                panels[index].rejected = "\(error)"
            }
        }
        update.retryAfter = retryDelay()
        return update
    }

    /// One power check of every answering panel (`PowerCheckSchedule`): a read-back of one
    /// RAM byte each, re-initialising a chip on a mismatch; every `settingsEvery`-th check of
    /// a panel also re-sends its settings. A device that cannot read gets its settings
    /// re-sent at every check and a full rewrite every `settingsEvery`-th. A transfer that
    /// fails marks the panel offline, as in `show`.
    public func checkPower() async -> DisplayUpdate {
        var update = DisplayUpdate(panels: [])
        // Plain loops, no key paths or closures over `Panel`: in this generic actor each
        // would make the runtime build key paths and type metadata at every check.
        if let schedule = powerChecks {
            for index in panels.indices where !panels[index].offline {
                check(index, settingsDue: schedule.settingsEvery, into: &update)
            }
        }
        update.offline = []
        for index in panels.indices where panels[index].offline { update.offline.append(panels[index].spec.role) }
        update.retryAfter = retryDelay()
        return update
    }

    /// The power check of panel `index` (see `checkPower`).
    private func check(_ index: Int, settingsDue every: Int, into update: inout DisplayUpdate) {
        panels[index].checks += 1
        let settingsDue = panels[index].checks % every == 0
        do {
            let found = try drivers[index].checkForPowerLoss()
            switch found {
            case .reinitialized:
                update.events.append(.reinitialized(panels[index].spec.role, "\(found)"))
                update.panels.append(try readout(index))
            case .cannotRead:
                if settingsDue { try drivers[index].reinitialize() } else { try drivers[index].reassertSettings() }
            case .intact, .skipped, .settingsReasserted:
                if settingsDue { try drivers[index].reassertSettings() }
            }
        } catch {
            failed(index, error, into: &update)
        }
    }

    /// Gives `body` the devices, e.g. to read traffic counters of emulated chips.
    public func inspect<R: Sendable>(_ body: ([Device]) -> R) -> R {
        body(drivers.map { $0.device })
    }

    /// 0.1 s, 0.2 s, 0.4 s, 0.8 s, then 1 s.
    static func backoff(attempts: Int) -> Duration {
        .milliseconds(min(1000, 100 << min(max(attempts - 1, 0), 4)))
    }

    /// A transfer to panel `index` failed: offline, reported once per outage.
    private func failed(_ index: Int, _ error: I2CError, into update: inout DisplayUpdate) {
        let event = markOffline(index, error)
        if panels[index].failedAttempts == 1 { update.events.append(event) }
        update.offline.append(panels[index].spec.role)
    }

    /// Set while a panel is offline: the backoff of the panel failing the shortest time.
    private func retryDelay() -> Duration? {
        var shortest: Duration?
        for index in panels.indices where panels[index].offline {
            let delay = Self.backoff(attempts: panels[index].failedAttempts)
            if shortest.map({ delay < $0 }) ?? true { shortest = delay }
        }
        return shortest
    }

    /// Marks panel `index` offline; the event is new only on the first failure.
    private func markOffline(_ index: Int, _ error: any Error) -> DisplayEvent {
        panels[index].offline = true
        panels[index].failedAttempts += 1
        return .offline(panels[index].spec.role, "\(error)")
    }

    private func readout(_ index: Int) throws(I2CError) -> PanelReadout {
        let state: HT16K33State
        if readBack, let full = drivers[index].device as? DisplayReadback {
            state = try full.readDisplayState()
        } else {
            var target = drivers[index].target
            if readBack, let ramOnly = drivers[index].device as? DisplayRAMReadback {
                target.ram = try ramOnly.readDisplayRAM()
            }
            state = target
        }
        let spec = panels[index].spec
        let text = panels[index].codec.text(of: state.ram)
        return PanelReadout(role: spec.role, kind: spec.kind, text: text, ram: state.ram,
                            brightness: state.brightness, blink: state.blink,
                            displayOn: state.displayOn)
    }
}

/// One panel of a `BoardDisplay`, its driver apart.
private struct BoardPanel {
    let spec: PanelSpec
    /// Text <-> RAM of this panel's backpack, remembering the last of each.
    var codec: PanelCodec
    var offline = false
    var failedAttempts = 0
    /// Power checks of this panel so far.
    var checks = 0
    /// The error of a face this panel could not encode, until one encodes again.
    var rejected: String?

    init(spec: PanelSpec) {
        self.spec = spec
        codec = PanelCodec(kind: spec.kind)
    }
}
