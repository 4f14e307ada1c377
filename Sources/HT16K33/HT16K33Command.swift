/// HT16K33 command bytes (Holtek HT16K33 datasheet, "Command Summary").
public enum HT16K33Command {
    /// Display data address pointer `0000 A3A2A1A0` (0x00...0x0F): RAM writes start
    /// here and auto-increment, wrapping from 0x0F to 0x00.
    public static let displayRAMAddress: UInt8 = 0x00
    /// Display RAM size: 16 bytes (8 COM rows x 16 ROW bits).
    public static let displayRAMSize = 16

    /// System setup `0010 xxxS` with S = 1: internal oscillator on (normal operation).
    public static let oscillatorOn: UInt8 = 0x21
    /// System setup `0010 xxxS` with S = 0: oscillator off (standby, power-on state).
    public static let standby: UInt8 = 0x20

    /// Display setup `1000 xB1B0D` base.
    public static let displaySetup: UInt8 = 0x80
    /// Display setup bit D: display on.
    public static let displayOnBit: UInt8 = 0x01

    /// Dimming set `1110 P3P2P1P0` base; level 0 = 1/16 duty (dimmest, not off),
    /// level 15 = 16/16 duty (power-on default).
    public static let dimming: UInt8 = 0xE0
    /// Highest dimming level.
    public static let maxBrightness: UInt8 = 15

    /// Display setup command: `0x80 | on | blink << 1`.
    public static func displaySetup(on: Bool, blink: BlinkRate) -> UInt8 {
        displaySetup | (on ? displayOnBit : 0) | blink.rawValue << 1
    }

    /// Dimming set command: `0xE0 | level` (levels above 15 are sent as 15).
    public static func dimming(_ level: UInt8) -> UInt8 {
        dimming | min(level, maxBrightness)
    }
}
