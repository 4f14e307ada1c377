import I2C

/// Driver for one HT16K33 over an already open `I2CDevice`.
///
/// It keeps a shadow of what the chip is known to hold (16 RAM bytes, oscillator,
/// display setup, dimming; the chip's settings are write-only) and writes only what
/// differs: one block write covering the first to the last changed RAM byte, and
/// a command byte per changed setting. When a transfer fails, everything it might
/// have touched is marked unknown, so the next `commit` or `reinitialize` rewrites it.
///
/// Write order (also the start-up sequence, HT16K33 datasheet power-on notes: RAM
/// content is undefined at power-up): oscillator on (0x21), display RAM, display
/// setup (0x80 | on | blink << 1), dimming (0xE0 | level).
///
/// A chip that loses power between two transfers fails none of them: it comes back
/// with garbage RAM and its settings at power-on defaults (oscillator and display off).
/// `checkForPowerLoss` finds that by reading one RAM byte back (the settings are
/// write-only) and re-initialises on a mismatch; `reassertSettings` re-sends the
/// write-only settings (a brown-out that kept RAM, or a device that cannot read).
///
/// All bookkeeping lives in the non-generic `HT16K33Shadow`: callers such as `BoardDisplay`
/// are themselves generic over the device, so this code runs unspecialized, and a generic
/// struct whose closures capture `self` makes the Swift runtime look up its type metadata
/// on every call. Here the generic part only forwards the three transfers to `device`.
public struct HT16K33Driver<Device: I2CDevice> {
    /// What the chip is known to hold and should hold (first: its offset is then fixed).
    private var shadow = HT16K33Shadow()
    /// The device; the driver never opens or closes it.
    public var device: Device

    /// What the chip should show: the last requested state.
    public var target: HT16K33State { shadow.target }
    /// Known RAM content per byte; nil = unknown (power-up, failed write).
    public var knownRAM: [UInt8?] { shadow.knownRAM }
    /// Last system setup byte known to have reached the chip.
    public var knownSystemSetup: UInt8? { shadow.knownSystemSetup }
    /// Last display setup byte known to have reached the chip.
    public var knownDisplaySetup: UInt8? { shadow.knownDisplaySetup }
    /// Last dimming byte known to have reached the chip.
    public var knownDimming: UInt8? { shadow.knownDimming }
    /// False once the device answered a read with EOPNOTSUPP: no more read-back checks.
    public var canRead: Bool { shadow.canRead }
    /// RAM index read by the last power-loss check (the next check reads the next one).
    public var lastCheckedIndex: Int? { shadow.lastCheckedIndex }
    /// A check of an all-blank panel cannot tell a dark chip that lost power from a lit
    /// blank one: the settings are then re-sent with the next non-blank picture.
    public var settingsUnverified: Bool { shadow.settingsUnverified }

    /// Takes the device; performs no I/O. Call `start` (or `commit`) next.
    public init(device: Device) {
        self.device = device
    }

    /// Whether the chip is known to match `target` (nothing left to write).
    public var isSynchronized: Bool { shadow.isSynchronized }

    /// Start-up: oscillator on, clear all 16 RAM bytes, then display on with
    /// `blink`, then `brightness`.
    public mutating func start(brightness: UInt8 = 15, blink: BlinkRate = .off) throws(I2CError) {
        shadow.target = HT16K33State(brightness: brightness, blink: blink)
        shadow.forget()
        try flush()
    }

    /// Makes the chip show `ram` (16 bytes for register 0x00...0x0F) with the given
    /// settings, writing only what changed; nothing at all if nothing did.
    /// `ram` of another length throws EINVAL without any I/O. Brightness above 15 is
    /// sent as 15.
    public mutating func commit(
        ram: [UInt8], brightness: UInt8, blink: BlinkRate, displayOn: Bool = true
    ) throws(I2CError) {
        guard ram.count == HT16K33Command.displayRAMSize else {
            throw I2CError(
                device, .writeBlock(register: HT16K33Command.displayRAMAddress, bytes: ram),
                errno: Errno.EINVAL)
        }
        shadow.aim(at: HT16K33State(ram: ram, brightness: brightness, blink: blink, displayOn: displayOn))
        try flush()
    }

    /// Rewrites everything (after the chip lost power): oscillator, all 16 RAM
    /// bytes, display setup and dimming, from `target`.
    public mutating func reinitialize() throws(I2CError) {
        shadow.forget()
        try flush()
    }

    /// Re-sends the write-only settings from `target`: system setup 0x21, display setup,
    /// dimming (3 bytes). A brown-out can reset them while display RAM survives, which a
    /// RAM read-back cannot see.
    public mutating func reassertSettings() throws(I2CError) {
        shadow.forgetSettings()
        try flush()
    }

    /// Power-loss check (one SMBus "read byte data", 2 bytes on the wire): reads one display
    /// RAM byte back and compares it with what the chip was sent. On a mismatch the chip lost
    /// power (RAM garbage, settings at power-on defaults: oscillator and display off), so
    /// everything is rewritten at once (`reinitialize`, 20 bytes).
    ///
    /// Only a byte not rewritten since the previous check can reveal a power loss since then,
    /// and it rotates over those whose target is non-zero, so an all-zero RAM (what the
    /// kernel's i2c-stub and some chips come back with) is caught at the first check. Without
    /// such a byte, a stale zero byte is read (random garbage shows there) and:
    /// - on a blank panel, a dark chip looks like a lit blank one: the next non-blank
    ///   picture re-sends the settings (`settingsUnverified`);
    /// - otherwise every lit byte was just rewritten, so RAM is right and only the settings
    ///   can be wrong: they are re-sent now (`.settingsReasserted`, 3 bytes more).
    /// Nothing is read while the chip is not known to match `target` (before the first
    /// commit, after a failed transfer or `standby`). A device that cannot read (EOPNOTSUPP)
    /// is never read again: `.cannotRead`, and the caller falls back to `reassertSettings`.
    public mutating func checkForPowerLoss() throws(I2CError) -> PowerCheck {
        guard shadow.canRead else { return .cannotRead }
        guard shadow.isSynchronized else { return .skipped }
        let choice = shadow.nextCheck()
        guard let index = choice.index else {
            try reassertSettings()
            return .settingsReasserted
        }
        let register = HT16K33Command.displayRAMAddress + UInt8(index)
        let value: UInt8
        do {
            value = try device.readByte(register: register)
        } catch where error.errno == Errno.EOPNOTSUPP {
            shadow.canRead = false
            return .cannotRead
        }
        shadow.lastCheckedIndex = index
        let expected = shadow.target.ram[index]
        guard value == expected else {
            try reinitialize()
            shadow.clearWrittenSinceCheck()
            return .reinitialized(register: register, read: value, expected: expected)
        }
        guard !choice.anyLit else { return .intact(register: register) }
        if choice.blank {
            shadow.settingsUnverified = true
            return .intact(register: register)
        }
        try reassertSettings()
        return .settingsReasserted
    }

    private mutating func flush() throws(I2CError) {
        if shadow.knownSystemSetup != HT16K33Command.oscillatorOn {
            shadow.knownSystemSetup = nil
            try device.sendByte(HT16K33Command.oscillatorOn)
            shadow.knownSystemSetup = HT16K33Command.oscillatorOn
        }
        try flushRAM()
        let setup = shadow.target.displaySetupCommand
        if shadow.knownDisplaySetup != setup {
            shadow.knownDisplaySetup = nil
            try device.sendByte(setup)
            shadow.knownDisplaySetup = setup
        }
        let dimming = shadow.target.dimmingCommand
        if shadow.knownDimming != dimming {
            shadow.knownDimming = nil
            try device.sendByte(dimming)
            shadow.knownDimming = dimming
        }
    }

    /// One block write from the first to the last changed RAM byte.
    private mutating func flushRAM() throws(I2CError) {
        guard let changed = shadow.changedRAM() else { return }
        shadow.beginWriting(changed)
        try device.writeBlock(
            register: HT16K33Command.displayRAMAddress + UInt8(changed.lowerBound),
            Array(shadow.target.ram[changed]))
        shadow.endWriting(changed)
    }
}

extension HT16K33Driver: Sendable where Device: Sendable {}
