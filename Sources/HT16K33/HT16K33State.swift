/// Everything one HT16K33 panel shows: display RAM plus the write-only settings.
public struct HT16K33State: Equatable, Sendable {
    /// The 16 display RAM bytes (register 0x00...0x0F).
    public var ram: [UInt8]
    /// Dimming level 0...15 (0xE0 | level); values above 15 are sent as 15.
    public var brightness: UInt8
    /// Blink field of the display setup command.
    public var blink: BlinkRate
    /// Display setup bit D.
    public var displayOn: Bool

    /// Defaults: blank RAM, full brightness, no blink, display on.
    public init(
        ram: [UInt8] = Array(repeating: 0, count: HT16K33Command.displayRAMSize),
        brightness: UInt8 = HT16K33Command.maxBrightness,
        blink: BlinkRate = .off,
        displayOn: Bool = true
    ) {
        self.ram = ram
        self.brightness = brightness
        self.blink = blink
        self.displayOn = displayOn
    }

    /// The display setup byte for this state.
    public var displaySetupCommand: UInt8 {
        HT16K33Command.displaySetup(on: displayOn, blink: blink)
    }

    /// The dimming byte for this state.
    public var dimmingCommand: UInt8 {
        HT16K33Command.dimming(brightness)
    }
}
