import HT16K33
import I2CPlayback
import Testing

let zeros = [UInt8](repeating: 0, count: 16)

/// The start-up sequence every driver test begins with.
func startup(brightness: UInt8 = 15, blink: BlinkRate = .off) -> [PlaybackI2CDevice.Step] {
    [
        .send(0x21),
        .block(0x00, zeros),
        .send(0x81 | blink.rawValue << 1),
        .send(0xE0 | brightness),
    ]
}

@Suite("Driver start-up and reinitialize")
struct DriverStartupTests {
    @Test func startupClearsRAMBeforeDisplayOn() throws {
        let bus = PlaybackI2CDevice([.send(0x21), .block(0x00, zeros), .send(0x81), .send(0xEF)])
        var driver = HT16K33Driver(device: bus)
        try driver.start()
        try bus.finish()
        #expect(driver.isSynchronized)
    }

    @Test func startupWithBlinkAndBrightness() throws {
        let bus = PlaybackI2CDevice([.send(0x21), .block(0x00, zeros), .send(0x85), .send(0xE3)])
        var driver = HT16K33Driver(device: bus)
        try driver.start(brightness: 3, blink: .oneHertz)
        try bus.finish()
    }

    @Test func initPerformsNoIO() throws {
        let bus = PlaybackI2CDevice([])
        let driver = HT16K33Driver(device: bus)
        try bus.finish()
        #expect(!driver.isSynchronized)
    }

    @Test func reinitializeRewritesEverything() throws {
        var ram = zeros
        ram[0] = 0x3F
        ram[8] = 0x06
        let bus = PlaybackI2CDevice(startup() + [.block(0x00, Array(ram[0...8]))])
        var driver = HT16K33Driver(device: bus)
        try driver.start()
        try driver.commit(ram: ram, brightness: 15, blink: .off)
        bus.expect([.send(0x21), .block(0x00, ram), .send(0x81), .send(0xEF)])
        try driver.reinitialize()
        try bus.finish()
    }

    @Test func firstCommitWithoutStartKeepsTheOrder() throws {
        var ram = zeros
        ram[2] = 0x5B
        let bus = PlaybackI2CDevice([.send(0x21), .block(0x00, ram), .send(0x83), .send(0xE7)])
        var driver = HT16K33Driver(device: bus)
        try driver.commit(ram: ram, brightness: 7, blink: .twoHertz)
        try bus.finish()
    }
}
