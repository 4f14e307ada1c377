import HT16K33
import SegmentDisplay
import Simulation
import Testing

@Suite("Emulated HT16K33 command table")
struct EmulatorCommandTests {
    @Test func powerOnState() {
        let chip = EmulatedHT16K33(garbage: .pattern([0xAA, 0x55]))
        #expect(!chip.oscillatorOn && !chip.displayOn && !chip.isLit)
        #expect(chip.blink == .off)
        #expect(chip.brightness == 15)
        #expect(chip.ram == Array(repeating: [0xAA, 0x55], count: 8).flatMap { $0 })
    }

    @Test func systemSetup() throws {
        let chip = EmulatedHT16K33()
        try chip.sendByte(0x21)
        #expect(chip.oscillatorOn)
        try chip.sendByte(0x20)
        #expect(!chip.oscillatorOn)
        try chip.sendByte(0x2F) // don't-care bits set, S = 1
        #expect(chip.oscillatorOn)
    }

    @Test("display setup 0x80...0x87", arguments: 0x80...0x87)
    func displaySetup(_ command: Int) throws {
        let chip = EmulatedHT16K33()
        try chip.sendByte(UInt8(command))
        #expect(chip.displayOn == (command & 1 == 1))
        #expect(chip.blink.rawValue == UInt8((command >> 1) & 3))
    }

    @Test("dimming 0xE0...0xEF", arguments: 0xE0...0xEF)
    func dimming(_ command: Int) throws {
        let chip = EmulatedHT16K33()
        try chip.sendByte(UInt8(command))
        #expect(chip.brightness == UInt8(command - 0xE0))
    }

    @Test func ramWriteAutoIncrementsAndWraps() throws {
        let chip = EmulatedHT16K33(garbage: .pattern([0]))
        try chip.writeBlock(register: 0x0E, [1, 2, 3, 4])
        #expect(chip.ram[14] == 1 && chip.ram[15] == 2 && chip.ram[0] == 3 && chip.ram[1] == 4)
        #expect(chip.addressPointer == 2)
        try chip.writeBlock(register: 0x00, Array(1...17))
        #expect(chip.ram[0] == 17 && chip.ram[1] == 2 && chip.ram[15] == 16)
    }

    @Test func sendByteBelow0x10SetsTheAddressPointer() throws {
        let chip = EmulatedHT16K33()
        try chip.sendByte(0x09)
        #expect(chip.addressPointer == 9)
    }

    @Test func otherCommandsAreRecordedNotStored() throws {
        let chip = EmulatedHT16K33(garbage: .pattern([0]))
        try chip.sendByte(0xA1)
        try chip.sendByte(0x40)
        try chip.sendByte(0xD9)
        try chip.writeBlock(register: 0x81, [0xFF, 0xFF])
        #expect(chip.rowIntSet == 0xA1)
        #expect(chip.keyAddressCommand == 0x40)
        #expect(chip.unknownCommands == 1)
        #expect(chip.displayOn)
        #expect(chip.ram == Array(repeating: 0, count: 16))
    }

    @Test func trafficCountsEveryByte() throws {
        let chip = EmulatedHT16K33()
        try chip.sendByte(0x21)
        try chip.writeBlock(register: 0, Array(repeating: 0, count: 16))
        #expect(chip.traffic.transactions == 2)
        #expect(chip.traffic.bytes == 1 + 17)
        #expect(chip.traffic.ramBytes == 16)
        chip.resetTraffic()
        #expect(chip.traffic == Traffic())
    }

    @Test func driverStartupThroughTheEmulator() throws {
        let chip = EmulatedHT16K33(name: "i2c-1", garbage: .random(seed: 7))
        var driver = HT16K33Driver(device: chip)
        try driver.start(brightness: 8, blink: .oneHertz)
        #expect(chip.isLit && chip.brightness == 8 && chip.blink == .oneHertz)
        #expect(chip.ram == Array(repeating: 0, count: 16))
        let frame = try Frame(" 2:58", kind: .seg7x4)
        chip.resetTraffic()
        try driver.commit(ram: frame.ram(), brightness: 8, blink: .oneHertz)
        #expect(try chip.text(kind: .seg7x4) == " 2:58")
        #expect(chip.traffic.transactions == 1)
        #expect(chip.traffic.bytes == 1 + 7) // bytes 2...8 in one block
        try driver.commit(ram: Frame(" 2:57", kind: .seg7x4).ram(), brightness: 8, blink: .oneHertz)
        #expect(chip.traffic.bytes == 8 + 2)
        #expect(chip.blink == .oneHertz)
    }
}
