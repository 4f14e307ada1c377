import HT16K33
import I2C
import SegmentDisplay
import Simulation
import TestSupport
import Testing

@Suite("Emulator fault injection")
struct EmulatorFaultTests {
    @Test func nextOperationsFail() throws {
        let chip = EmulatedHT16K33(name: "i2c-1")
        chip.failNext(2, errno: Errno.ENXIO)
        let error = thrownError(I2CError.self) { try chip.sendByte(0x21) }
        #expect(error?.description == "i2c-1 0x70: send byte 0x21 failed: ENXIO (6)")
        #expect(throws: I2CError.self) { try chip.sendByte(0x21) }
        #expect(!chip.oscillatorOn)
        try chip.sendByte(0x21)
        #expect(chip.oscillatorOn)
        #expect(chip.traffic.failedTransactions == 2)
        #expect(chip.traffic.transactions == 1)
    }

    @Test func faultMatchesOnlyChosenOperations() throws {
        let chip = EmulatedHT16K33()
        chip.failNext(matching: .command(0xEF))
        try chip.sendByte(0x21)
        try chip.writeBlock(register: 0, [1])
        #expect(throws: I2CError.self) { try chip.sendByte(0xEF) }
        chip.failNext(matching: .writeBlock)
        try chip.sendByte(0xE0)
        #expect(throws: I2CError.self) { try chip.writeBlock(register: 0, [2]) }
        #expect(chip.faults.isEmpty)
    }

    @Test func partialBlockWriteThenDriverRepairs() throws {
        let chip = EmulatedHT16K33()
        var driver = HT16K33Driver(device: chip)
        try driver.start()
        let frame = try Frame("88:88", kind: .seg7x4)
        chip.inject(Fault(match: .writeBlock, errno: Errno.EIO, partialBytes: 3))
        #expect(throws: I2CError.self) { try driver.commit(ram: frame.ram(), brightness: 15, blink: .off) }
        #expect(chip.ram[0] == 0x7F && chip.ram[2] == 0x7F && chip.ram[4] == 0)
        try driver.commit(ram: frame.ram(), brightness: 15, blink: .off)
        #expect(try chip.text(kind: .seg7x4) == "88:88")
    }

    @Test func powerLossResetsSettingsAndGarblesRAM() throws {
        let chip = EmulatedHT16K33()
        var driver = HT16K33Driver(device: chip)
        try driver.start(brightness: 2, blink: .twoHertz)
        let frame = try Frame("12:34", kind: .seg7x4)
        try driver.commit(ram: frame.ram(), brightness: 2, blink: .twoHertz)
        chip.powerLoss(garbage: .pattern([0xFF]))
        #expect(!chip.oscillatorOn && !chip.displayOn && chip.blink == .off && chip.brightness == 15)
        #expect(chip.ram == Array(repeating: 0xFF, count: 16))
        #expect(throws: SegmentDisplayError.self) { try chip.text(kind: .seg7x4) }
        // The driver's shadow still claims the old state: a plain commit writes nothing.
        chip.resetTraffic()
        try driver.commit(ram: frame.ram(), brightness: 2, blink: .twoHertz)
        #expect(chip.traffic.transactions == 0)
        try driver.reinitialize()
        #expect(chip.isLit && chip.brightness == 2 && chip.blink == .twoHertz)
        #expect(try chip.text(kind: .seg7x4) == "12:34")
        #expect(chip.traffic.transactions == 4)
        #expect(chip.traffic.bytes == 1 + 17 + 1 + 1)
    }

    @Test func randomGarbageIsReproducible() {
        #expect(RAMGarbage.random(seed: 1).bytes() == RAMGarbage.random(seed: 1).bytes())
        #expect(RAMGarbage.random(seed: 1).bytes() != RAMGarbage.random(seed: 2).bytes())
    }
}
