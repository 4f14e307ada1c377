import HT16K33
import I2C
import I2CPlayback
import TestSupport
import Testing

@Suite("Driver error handling")
struct DriverErrorTests {
    @Test func failedBlockWriteIsRetriedWhole() throws {
        var ram = zeros
        ram[2] = 0x06
        ram[6] = 0x07
        let bus = PlaybackI2CDevice(startup() + [
            .block(0x02, [0x06, 0, 0, 0, 0x07], failing: Errno.EIO),
            .block(0x02, [0x06, 0, 0, 0, 0x07]),
        ])
        var driver = HT16K33Driver(device: bus)
        try driver.start()
        let error = thrownError(I2CError.self) {
            try driver.commit(ram: ram, brightness: 15, blink: .off)
        }
        #expect(error?.errno == Errno.EIO)
        #expect(error?.description == "playback 0x70: write block @0x02 (5 bytes) failed: EIO (5)")
        #expect(!driver.isSynchronized)
        try driver.commit(ram: ram, brightness: 15, blink: .off)
        #expect(driver.isSynchronized)
        try bus.finish()
    }

    @Test func failedRangeStaysUnknownWhenANarrowerChangeFollows() throws {
        var first = zeros
        first[0] = 0x3F
        first[8] = 0x3F
        var second = first
        second[8] = 0x06
        // The failed 0...8 range is unknown, so the next commit rewrites 0...8 even
        // though only byte 8 differs from the previous request.
        let bus = PlaybackI2CDevice(startup() + [
            .block(0x00, Array(first[0...8]), failing: Errno.ENXIO),
            .block(0x00, Array(second[0...8])),
        ])
        var driver = HT16K33Driver(device: bus)
        try driver.start()
        #expect(throws: I2CError.self) { try driver.commit(ram: first, brightness: 15, blink: .off) }
        try driver.commit(ram: second, brightness: 15, blink: .off)
        try bus.finish()
    }

    @Test func failedSettingIsResent() throws {
        let bus = PlaybackI2CDevice(startup() + [
            .send(0xE4, failing: Errno.EREMOTEIO),
            .send(0xE4),
        ])
        var driver = HT16K33Driver(device: bus)
        try driver.start()
        #expect(throws: I2CError.self) { try driver.commit(ram: zeros, brightness: 4, blink: .off) }
        try driver.commit(ram: zeros, brightness: 4, blink: .off)
        try bus.finish()
    }

    @Test func failedOscillatorStopsTheSequence() throws {
        let bus = PlaybackI2CDevice([.send(0x21, failing: Errno.ENXIO)] + startup())
        var driver = HT16K33Driver(device: bus)
        let error = thrownError(I2CError.self) { try driver.start() }
        #expect(error?.description == "playback 0x70: send byte 0x21 failed: ENXIO (6)")
        try driver.reinitialize()
        try bus.finish()
    }

    @Test func failureMidStartupResumesWhereNeeded() throws {
        let bus = PlaybackI2CDevice([
            .send(0x21), .block(0x00, zeros), .send(0x81, failing: Errno.EIO),
            .send(0x81), .send(0xEF),
        ])
        var driver = HT16K33Driver(device: bus)
        #expect(throws: I2CError.self) { try driver.start() }
        try driver.commit(ram: zeros, brightness: 15, blink: .off)
        try bus.finish()
    }

    @Test func wrongRAMLengthIsEINVALWithoutIO() throws {
        let bus = PlaybackI2CDevice(startup())
        var driver = HT16K33Driver(device: bus)
        try driver.start()
        let error = thrownError(I2CError.self) {
            try driver.commit(ram: [1, 2, 3], brightness: 15, blink: .off)
        }
        #expect(error?.errno == Errno.EINVAL)
        try bus.finish()
    }
}
