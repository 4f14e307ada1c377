import HT16K33
import I2CPlayback
import Testing

@Suite("Driver partial updates")
struct DriverCommitTests {
    func started(_ steps: [PlaybackI2CDevice.Step]) throws -> (PlaybackI2CDevice, HT16K33Driver<PlaybackI2CDevice>) {
        let bus = PlaybackI2CDevice(startup() + steps)
        var driver = HT16K33Driver(device: bus)
        try driver.start()
        return (bus, driver)
    }

    /// Brightness is a panel setting clamped where it meets the chip: levels above 15 are
    /// sent as 15 (dimming 0xEF), and blink goes out in the display setup command.
    @Test func brightnessAbove15IsSentAs15AndBlinkGoesToDisplaySetup() throws {
        #expect(HT16K33Command.dimming(40) == 0xEF && HT16K33Command.dimming(3) == 0xE3)
        // 0x85 = 0x80 | on | 1 Hz (B1B0 = 10) << 1; then dimming 3, then 40 sent as 15.
        let (bus, fresh) = try started([.send(0x85), .send(0xE3), .send(0xEF)])
        var driver = fresh
        try driver.commit(ram: Array(repeating: 0, count: 16), brightness: 3, blink: .oneHertz)
        try driver.commit(ram: Array(repeating: 0, count: 16), brightness: 40, blink: .oneHertz)
        try bus.finish()
    }

    @Test func singleChangedByte() throws {
        var ram = zeros
        ram[6] = 0x6D
        let (bus, initial) = try started([.block(0x06, [0x6D])])
        var driver = initial
        try driver.commit(ram: ram, brightness: 15, blink: .off)
        try bus.finish()
    }

    @Test func rangeWrite() throws {
        var ram = zeros
        ram[2] = 0x06
        ram[8] = 0x7F
        let (bus, initial) = try started([.block(0x02, [0x06, 0, 0, 0, 0, 0, 0x7F])])
        var driver = initial
        try driver.commit(ram: ram, brightness: 15, blink: .off)
        try bus.finish()
    }

    @Test func noChangeWritesNothing() throws {
        var ram = zeros
        ram[0] = 0x3F
        let (bus, initial) = try started([.block(0x00, [0x3F])])
        var driver = initial
        try driver.commit(ram: ram, brightness: 15, blink: .off)
        try driver.commit(ram: ram, brightness: 15, blink: .off)
        try driver.commit(ram: ram, brightness: 15, blink: .off, displayOn: true)
        try bus.finish()
        #expect(bus.performed.count == 5)
    }

    @Test func settingsOnlyWhenChanged() throws {
        let (bus, initial) = try started([.send(0xE5), .send(0x87), .send(0x86), .send(0x81), .send(0xE0)])
        var driver = initial
        try driver.commit(ram: zeros, brightness: 5, blink: .off)
        try driver.commit(ram: zeros, brightness: 5, blink: .halfHertz)
        try driver.commit(ram: zeros, brightness: 5, blink: .halfHertz, displayOn: false)
        try driver.commit(ram: zeros, brightness: 5, blink: .off)
        try driver.commit(ram: zeros, brightness: 0, blink: .off)
        try bus.finish()
    }

    @Test func ramAndSettingsTogetherInOrder() throws {
        var ram = zeros
        ram[15] = 0x80
        let (bus, initial) = try started([.block(0x0F, [0x80]), .send(0x83), .send(0xE1)])
        var driver = initial
        try driver.commit(ram: ram, brightness: 1, blink: .twoHertz)
        try bus.finish()
    }

    @Test func brightnessAboveFifteenIsSentAsFifteen() throws {
        let (bus, initial) = try started([])
        var driver = initial
        try driver.commit(ram: zeros, brightness: 200, blink: .off)
        try bus.finish()
        #expect(HT16K33Command.dimming(200) == 0xEF)
    }
}
