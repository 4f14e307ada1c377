import HT16K33
import I2C
import I2CPlayback
import TestSupport
import Testing

/// `checkForPowerLoss` and `reassertSettings`, byte for byte (a chip
/// that lost power between two writes fails no transfer; only a read-back finds it).
@Suite("Driver power-loss check")
struct PowerCheckTests {
    /// " 2:58" on a seg7x4 backpack: digits at bytes 2, 6, 8, colon at byte 4.
    let ram: [UInt8] = [0x00, 0x00, 0x5b, 0x00, 0x02, 0x00, 0x6d, 0x00, 0x7f, 0, 0, 0, 0, 0, 0, 0]
    let startUp: [PlaybackI2CDevice.Step] = [.send(0x21), .block(0x00, Array(repeating: 0, count: 16)), .send(0x81), .send(0xEF)]

    /// Started, showing " 2:58", and checked once: every byte was written since, so that
    /// first check can only re-send the settings.
    func showing2_58() throws -> (HT16K33Driver<PlaybackI2CDevice>, PlaybackI2CDevice) {
        let bus = PlaybackI2CDevice(startUp + [.block(0x02, [0x5b, 0x00, 0x02, 0x00, 0x6d, 0x00, 0x7f]),
                                               .send(0x21), .send(0x81), .send(0xEF)])
        var driver = HT16K33Driver(device: bus)
        try driver.start()
        try driver.commit(ram: ram, brightness: 15, blink: .off)
        let first = try driver.checkForPowerLoss()
        #expect(first == .settingsReasserted)
        return (driver, bus)
    }

    @Test func readsOneNonZeroRAMByteAtATimeInRotation() throws {
        var (driver, bus) = try showing2_58()
        bus.expect([.read(0x02, replying: 0x5b), .read(0x04, replying: 0x02), .read(0x06, replying: 0x6d),
                    .read(0x08, replying: 0x7f), .read(0x02, replying: 0x5b)])
        var found: [PowerCheck] = []
        for _ in 0..<5 { found.append(try driver.checkForPowerLoss()) }
        #expect(found == [.intact(register: 0x02), .intact(register: 0x04), .intact(register: 0x06),
                          .intact(register: 0x08), .intact(register: 0x02)])
        try bus.finish()
    }

    /// A byte written since the last check holds what was written even after a power loss
    /// in between: only the others are read.
    @Test func bytesRewrittenSinceTheLastCheckAreNotRead() throws {
        var (driver, bus) = try showing2_58()
        var ram59 = ram
        ram59[8] = 0x6f
        bus.expect([.block(0x08, [0x6f]), .read(0x02, replying: 0x5b), .block(0x08, [0x7f]), .read(0x04, replying: 0x02),
                    .block(0x08, [0x6f]), .read(0x06, replying: 0x6d), .block(0x08, [0x7f]), .read(0x02, replying: 0x5b)])
        var found: [PowerCheck] = []
        for next in [ram59, ram, ram59, ram] {
            try driver.commit(ram: next, brightness: 15, blink: .off)
            found.append(try driver.checkForPowerLoss())
        }
        #expect(found == [.intact(register: 0x02), .intact(register: 0x04), .intact(register: 0x06), .intact(register: 0x02)])
        // Every lit byte rewritten: a stale zero byte is read (random garbage would show
        // there), then the settings are re-sent, which only a chip that lost power needed.
        // " 1:47": one block from byte 2 to byte 8, the unchanged colon byte 4 included.
        let other: [UInt8] = [0x00, 0x00, 0x06, 0x00, 0x02, 0x00, 0x66, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0]
        bus.expect([.block(0x02, [0x06, 0x00, 0x02, 0x00, 0x66, 0x00, 0x07]), .read(0x09, replying: 0x00),
                    .send(0x21), .send(0x81), .send(0xEF)])
        try driver.commit(ram: other, brightness: 15, blink: .off)
        let rewritten = try driver.checkForPowerLoss()
        #expect(rewritten == .settingsReasserted)
        try bus.finish()
    }

    @Test func aMismatchRewritesEverythingAtOnce() throws {
        var (driver, bus) = try showing2_58()
        // The chip came back from a power loss with zeroed RAM (what i2c-stub holds): the
        // first non-zero byte already differs, and the full start-up sequence follows.
        bus.expect([.read(0x02, replying: 0x00),
                    .send(0x21), .block(0x00, ram), .send(0x81), .send(0xEF)])
        let found = try driver.checkForPowerLoss()
        #expect(found == .reinitialized(register: 0x02, read: 0x00, expected: 0x5b))
        #expect(found.description == "RAM @0x02 read back 0x00, expected 0x5b")
        #expect(driver.isSynchronized)
        try bus.finish()
    }

    @Test func reinitialisationKeepsBlinkAndBrightness() throws {
        var (driver, bus) = try showing2_58()
        bus.expect([.send(0x85), .send(0xE3)])
        try driver.commit(ram: ram, brightness: 3, blink: .oneHertz)
        bus.expect([.read(0x02, replying: 0xAA), .send(0x21), .block(0x00, ram), .send(0x85), .send(0xE3)])
        let found = try driver.checkForPowerLoss()
        #expect(found == .reinitialized(register: 0x02, read: 0xAA, expected: 0x5b))
        try bus.finish()
    }

    @Test func aFailedReadThrowsAndChangesNothing() throws {
        var (driver, bus) = try showing2_58()
        bus.expect([.read(0x02, replying: 0, failing: Errno.ENXIO)])
        let error = thrownError(I2CError.self) { _ = try driver.checkForPowerLoss() }
        #expect(error?.description == "playback 0x70: read byte @0x02 failed: ENXIO (6)")
        #expect(driver.isSynchronized && driver.canRead)
        try bus.finish()
    }

    @Test func aDeviceThatCannotReadIsNotAskedAgain() throws {
        var (driver, bus) = try showing2_58()
        bus.expect([.read(0x02, replying: 0, failing: Errno.EOPNOTSUPP)])
        let first = try driver.checkForPowerLoss()
        let second = try driver.checkForPowerLoss()
        #expect(first == .cannotRead && second == .cannotRead)
        #expect(!driver.canRead)
        // The fallback: the write-only settings, in start-up order.
        bus.expect([.send(0x21), .send(0x81), .send(0xEF)])
        try driver.reassertSettings()
        try bus.finish()
    }

    @Test func nothingIsReadBeforeTheChipStateIsKnown() throws {
        let bus = PlaybackI2CDevice([])
        var driver = HT16K33Driver(device: bus)
        let found = try driver.checkForPowerLoss()
        #expect(found == .skipped)
        try bus.finish()
    }

    /// A blank panel that lost power is dark, as it should look, and zeroed RAM reads back as
    /// written: the next non-blank picture then carries the settings too.
    @Test func aBlankPanelRotatesOverAllBytesAndResendsSettingsWithTheNextPicture() throws {
        let bus = PlaybackI2CDevice(startUp + [.send(0x21), .send(0x81), .send(0xEF)] + (0..<17).map { .read(UInt8($0 % 16), replying: 0) })
        var driver = HT16K33Driver(device: bus)
        try driver.start()
        let first = try driver.checkForPowerLoss()
        #expect(first == .settingsReasserted)
        var found: [PowerCheck] = []
        for _ in 0..<17 { found.append(try driver.checkForPowerLoss()) }
        #expect(found == (0..<17).map { .intact(register: UInt8($0 % 16)) })
        #expect(driver.settingsUnverified)
        bus.expect([.send(0x21), .block(0x02, [0x5b, 0x00, 0x02, 0x00, 0x6d, 0x00, 0x7f]), .send(0x81), .send(0xEF)])
        try driver.commit(ram: ram, brightness: 15, blink: .off)
        #expect(!driver.settingsUnverified)
        // Random garbage on a blank panel is found like any other mismatch.
        let blank = Array(repeating: UInt8(0), count: 16)
        bus.expect([.block(0x02, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]), .read(0x01, replying: 0x3c),
                    .send(0x21), .block(0x00, blank), .send(0x81), .send(0xEF)])
        try driver.commit(ram: blank, brightness: 15, blink: .off)
        let garbage = try driver.checkForPowerLoss()
        #expect(garbage == .reinitialized(register: 0x01, read: 0x3c, expected: 0))
        try bus.finish()
    }

    @Test func playbackScriptsReadsAndReportsUnexpectedOnes() throws {
        let bus = PlaybackI2CDevice([.read(0x02, replying: 0x5b), .send(0x21)])
        #expect(try bus.readByte(register: 0x02) == 0x5b)
        #expect(throws: I2CError.self) { _ = try bus.readByte(register: 0x04) }
        let report = thrownError(PlaybackError.self) { try bus.finish() }
        #expect(report?.mismatches == ["unexpected read byte @0x04; expected send byte 0x21"])
        #expect(PlaybackI2CDevice.Step.read(0x08, replying: 0x7f).description == "read byte @0x08 -> 0x7f")
    }
}
