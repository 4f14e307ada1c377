/// A device whose display state can be read back: the emulated chip, and the kernel's
/// i2c-stub (which keeps written RAM). The frames file reports what such a device
/// really holds instead of what the driver meant to write.
public protocol DisplayReadback {
    /// Display RAM, dimming level, blink rate, and whether LEDs can light
    /// (oscillator and display both on).
    func readDisplayState() throws(I2CError) -> HT16K33State
}
