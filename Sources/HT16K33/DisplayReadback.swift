import I2C

/// A device whose display RAM can be read back (SMBus read I2C block at 0x00): a real
/// HT16K33 and the kernel's i2c-stub. Its settings are write-only.
public protocol DisplayRAMReadback {
    func readDisplayRAM() throws(I2CError) -> [UInt8]
}

/// A device whose whole display state can be read back: the emulated chip. The frames
/// file then reports what the chip really holds instead of what the driver meant to write.
public protocol DisplayReadback: DisplayRAMReadback {
    /// Display RAM, dimming level, blink rate, and whether LEDs can light
    /// (oscillator and display both on).
    func readDisplayState() throws(I2CError) -> HT16K33State
}

extension DisplayReadback {
    public func readDisplayRAM() throws(I2CError) -> [UInt8] { try readDisplayState().ram }
}
