import HT16K33
import I2C
import Simulation
import TestSupport
import Testing

/// The emulated chip's power faults and reads: what a real HT16K33 does.
@Suite("Emulator power faults and reads")
struct EmulatorPowerTests {
    /// A chip showing `ram` with blink 1 Hz and dimming 3, as the driver would leave it.
    func litChip(_ ram: [UInt8]) throws -> EmulatedHT16K33 {
        let chip = EmulatedHT16K33()
        try chip.sendByte(0x21)
        try chip.writeBlock(register: 0x00, ram)
        try chip.sendByte(0x85)
        try chip.sendByte(0xE3)
        chip.resetTraffic()
        return chip
    }

    let ram: [UInt8] = (0..<16).map { UInt8($0 * 3 + 1) }

    @Test func powerLossForgetsEverythingWithoutFailingATransfer() throws {
        let chip = try litChip(ram)
        try chip.writeBlock(register: 0x05, [ram[5]]) // address pointer at 6
        chip.powerLoss(garbage: .pattern([0xAA]))
        #expect(chip.ram == Array(repeating: 0xAA, count: 16))
        #expect(!chip.oscillatorOn && !chip.displayOn && !chip.isLit)
        #expect(chip.blink == .off && chip.brightness == 15 && chip.addressPointer == 0)
        #expect(chip.powered && chip.traffic.failedTransactions == 0)
    }

    @Test func anOutageNACKsEveryTransferUntilPowerReturns() throws {
        let chip = try litChip(ram)
        chip.powerOff()
        let write = thrownError(I2CError.self) { try chip.sendByte(0x21) }
        #expect(write?.errno == Errno.ENXIO)
        let read = thrownError(I2CError.self) { _ = try chip.readByte(register: 0x02) }
        #expect(read?.description == "emulated 0x70: read byte @0x02 failed: ENXIO (6)")
        #expect(chip.traffic.failedTransactions == 2 && chip.traffic.bytes == 0)
        chip.powerOn(garbage: .pattern([]))
        #expect(chip.ram == Array(repeating: 0, count: 16) && !chip.isLit)
        try chip.sendByte(0x21)
        #expect(chip.oscillatorOn)
    }

    @Test func brownOutResetsSettingsButKeepsRAM() throws {
        let chip = try litChip(ram)
        chip.brownOut()
        #expect(chip.ram == ram)
        #expect(!chip.isLit && chip.blink == .off && chip.brightness == 15)
    }

    @Test func readByteDataReadsRAMAtTheRegisterAndCountsTwoBytes() throws {
        let chip = try litChip(ram)
        #expect(try chip.readByte(register: 0x07) == ram[7])
        #expect(chip.addressPointer == 8, "the pointer auto-increments after a read")
        #expect(try chip.readByte(register: 0x0F) == ram[15])
        #expect(chip.addressPointer == 0, "wraps from 0x0F to 0x00")
        #expect(try chip.readByte(register: 0x40) == 0, "key data RAM: no key matrix here")
        #expect(chip.traffic.transactions == 3 && chip.traffic.bytes == 6 && chip.traffic.readBytes == 3)
        #expect(chip.traffic.description == "3 transactions, 6 bytes (0 RAM, 3 read), 0 failed")
    }

    @Test func anAdapterWithoutReadsRefusesBeforeTheBus() throws {
        let chip = EmulatedHT16K33(supportsReads: false)
        let error = thrownError(I2CError.self) { _ = try chip.readByte(register: 0) }
        #expect(error?.errno == Errno.EOPNOTSUPP)
        #expect(chip.traffic == Traffic())
    }

    @Test func readFaultsMatchReadsOnly() throws {
        let chip = try litChip(ram)
        chip.failNext(matching: .read)
        try chip.sendByte(0x81)
        #expect(throws: I2CError.self) { _ = try chip.readByte(register: 0) }
        #expect(chip.faults.isEmpty)
    }
}
