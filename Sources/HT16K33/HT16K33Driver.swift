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
public struct HT16K33Driver<Device: I2CDevice> {
    /// The device; the driver never opens or closes it.
    public var device: Device
    /// What the chip should show: the last requested state.
    public private(set) var target: HT16K33State
    /// Known RAM content per byte; nil = unknown (power-up, failed write).
    public private(set) var knownRAM: [UInt8?]
    /// Last system setup byte known to have reached the chip.
    public private(set) var knownSystemSetup: UInt8?
    /// Last display setup byte known to have reached the chip.
    public private(set) var knownDisplaySetup: UInt8?
    /// Last dimming byte known to have reached the chip.
    public private(set) var knownDimming: UInt8?

    /// Takes the device; performs no I/O. Call `start` (or `commit`) next.
    public init(device: Device) {
        self.device = device
        target = HT16K33State()
        knownRAM = Array(repeating: nil, count: HT16K33Command.displayRAMSize)
    }

    /// Whether the chip is known to match `target` (nothing left to write).
    public var isSynchronized: Bool {
        knownSystemSetup == HT16K33Command.oscillatorOn
            && knownRAM.elementsEqual(target.ram, by: { $0 == $1 })
            && knownDisplaySetup == target.displaySetupCommand
            && knownDimming == target.dimmingCommand
    }

    /// Start-up: oscillator on, clear all 16 RAM bytes, then display on with
    /// `blink`, then `brightness`.
    public mutating func start(brightness: UInt8 = 15, blink: BlinkRate = .off) throws(I2CError) {
        target = HT16K33State(brightness: brightness, blink: blink)
        forget()
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
        target = HT16K33State(ram: ram, brightness: brightness, blink: blink, displayOn: displayOn)
        try flush()
    }

    /// Rewrites everything (after the chip lost power): oscillator, all 16 RAM
    /// bytes, display setup and dimming, from `target`.
    public mutating func reinitialize() throws(I2CError) {
        forget()
        try flush()
    }

    /// System setup 0x20: oscillator off (standby; display dark, RAM kept).
    /// The next `commit` switches the oscillator back on.
    public mutating func standby() throws(I2CError) {
        knownSystemSetup = nil
        try device.sendByte(HT16K33Command.standby)
        knownSystemSetup = HT16K33Command.standby
    }

    private mutating func forget() {
        knownRAM = Array(repeating: nil, count: HT16K33Command.displayRAMSize)
        knownSystemSetup = nil
        knownDisplaySetup = nil
        knownDimming = nil
    }

    private mutating func flush() throws(I2CError) {
        if knownSystemSetup != HT16K33Command.oscillatorOn {
            knownSystemSetup = nil
            try device.sendByte(HT16K33Command.oscillatorOn)
            knownSystemSetup = HT16K33Command.oscillatorOn
        }
        try flushRAM()
        let setup = target.displaySetupCommand
        if knownDisplaySetup != setup {
            knownDisplaySetup = nil
            try device.sendByte(setup)
            knownDisplaySetup = setup
        }
        let dimming = target.dimmingCommand
        if knownDimming != dimming {
            knownDimming = nil
            try device.sendByte(dimming)
            knownDimming = dimming
        }
    }

    private mutating func flushRAM() throws(I2CError) {
        let changed = target.ram.indices.filter { knownRAM[$0] != target.ram[$0] }
        guard let first = changed.first, let last = changed.last else { return }
        for index in first...last { knownRAM[index] = nil }
        try device.writeBlock(
            register: HT16K33Command.displayRAMAddress + UInt8(first),
            Array(target.ram[first...last]))
        for index in first...last { knownRAM[index] = target.ram[index] }
    }
}

extension HT16K33Driver: Sendable where Device: Sendable {}
