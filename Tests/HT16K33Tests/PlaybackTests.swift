import HT16K33
import I2C
import I2CPlayback
import TestSupport
import Testing

@Suite("Playback device")
struct PlaybackTests {
    @Test func reportsUnexpectedOperation() {
        let bus = PlaybackI2CDevice([.send(0x21)])
        let error = thrownError(I2CError.self) { try bus.sendByte(0x20) }
        #expect(error?.errno == Errno.EPROTO)
        let report = thrownError(PlaybackError.self) { try bus.finish() }
        #expect(report?.mismatches == ["unexpected send byte 0x20; expected send byte 0x21"])
        #expect(report?.leftovers == ["send byte 0x21"])
    }

    @Test func reportsExtraOperation() throws {
        let bus = PlaybackI2CDevice([])
        #expect(throws: I2CError.self) { try bus.writeBlock(register: 0, [1]) }
        let report = thrownError(PlaybackError.self) { try bus.finish() }
        #expect(report?.mismatches == ["unexpected write block @0x00 [0x01]; expected nothing"])
    }

    @Test func reportsMissingOperation() {
        let bus = PlaybackI2CDevice([.send(0x81), .block(0x04, [2])])
        #expect(throws: Never.self) { try bus.sendByte(0x81) }
        let report = thrownError(PlaybackError.self) { try bus.finish() }
        #expect(report?.leftovers == ["write block @0x04 [0x02]"])
        #expect(report?.description == "playback: missing: write block @0x04 [0x02]")
    }

    @Test func blockBytesMustMatchExactly() {
        let bus = PlaybackI2CDevice([.block(0x00, [1, 2])])
        #expect(throws: I2CError.self) { try bus.writeBlock(register: 0, [1, 2, 3]) }
        #expect(bus.mismatches.count == 1)
    }

    @Test func scriptedErrno() throws {
        let bus = PlaybackI2CDevice(name: "i2c-1", address: 0x71, [.send(0xE0, failing: Errno.ETIMEDOUT)])
        let error = thrownError(I2CError.self) { try bus.sendByte(0xE0) }
        #expect(error?.description == "i2c-1 0x71: send byte 0xe0 failed: ETIMEDOUT (110)")
        try bus.finish()
    }

    @Test func errorDescriptionNamesEverything() {
        let error = I2CError(
            device: "i2c-1", address: 0x70, operation: .writeBlock(register: 0, bytes: zeros), errno: 5)
        #expect(error.description == "i2c-1 0x70: write block @0x00 (16 bytes) failed: EIO (5)")
        #expect(Errno.name(999) == "errno")
    }

    @Test func commandConstants() {
        #expect(HT16K33Command.oscillatorOn == 0x21)
        #expect(HT16K33Command.standby == 0x20)
        #expect(HT16K33Command.displaySetup(on: true, blink: .off) == 0x81)
        #expect(HT16K33Command.displaySetup(on: true, blink: .halfHertz) == 0x87)
        #expect(HT16K33Command.displaySetup(on: false, blink: .twoHertz) == 0x82)
        #expect(HT16K33Command.dimming(0) == 0xE0)
        #expect(HT16K33Command.dimming(15) == 0xEF)
        #expect(BlinkRate.allCases.map { BlinkRate(bits: $0.rawValue) } == BlinkRate.allCases)
        #expect(BlinkRate(bits: 0x07) == .halfHertz)
    }
}
