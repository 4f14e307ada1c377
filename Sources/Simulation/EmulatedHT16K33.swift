import HT16K33
import I2C
import SegmentDisplay

/// An HT16K33 in software: receives the same transfers a real chip would and
/// interprets every command byte per the datasheet command summary:
///
/// | byte        | command                    | effect here                         |
/// |-------------|----------------------------|-------------------------------------|
/// | 0x00...0x0F | display data address ptr   | sets the RAM address pointer         |
/// | 0x20...0x2F | system setup `0010 xxxS`   | S: oscillator on/off                 |
/// | 0x40...0x47 | key data address pointer   | recorded (key RAM is not emulated)   |
/// | 0x60...0x6F | INT flag address pointer   | recorded                             |
/// | 0x80...0x8F | display setup `1000 xB1B0D`| D: display on; B1B0: blink           |
/// | 0xA0...0xAF | ROW/INT set                | recorded                             |
/// | 0xE0...0xEF | dimming set `1110 P3..P0`  | brightness level                     |
/// | other       | (test mode, undefined)     | counted in `unknownCommands`         |
///
/// A block write's register byte is such a command; when it is an address pointer
/// the data bytes fill RAM with auto-increment, wrapping from 0x0F to 0x00. Data
/// after any other command is ignored. A read (SMBus read byte data) executes its
/// register byte the same way and returns the RAM byte at the address pointer, which
/// then increments (key data and INT flag pointers read 0: no key matrix here).
///
/// Power faults, injectable at any moment (also from a `VirtualClock` action while the
/// render loop sleeps): `powerLoss` (off and on again between two transfers: nothing
/// fails, the chip just forgot everything), `powerOff`/`powerOn` (an outage during which
/// every transfer is NACKed with ENXIO), `brownOut` (settings reset, RAM kept). A power-on
/// reset leaves RAM garbage, the address pointer at 0 and every setting at its power-on
/// default (datasheet: standby, display off, no blink, dimming 16/16, ROW output).
/// A class: the driver and the renderer share it.
public final class EmulatedHT16K33: I2CDevice {
    public let name: String
    public let address: UInt8

    /// Display RAM.
    public private(set) var ram: [UInt8]
    /// System setup S bit (power-on: off = standby).
    public private(set) var oscillatorOn = false
    /// Display setup D bit (power-on: off).
    public private(set) var displayOn = false
    /// Display setup B1 B0 (power-on: off).
    public private(set) var blink: BlinkRate = .off
    /// Dimming level 0...15 (power-on default: 15 = 16/16 duty).
    public private(set) var brightness: UInt8 = HT16K33Command.maxBrightness
    /// Display RAM address pointer.
    public private(set) var addressPointer: UInt8 = 0
    /// Last key data / INT flag address pointer command (0x40...0x6F), if any.
    public private(set) var keyAddressCommand: UInt8?
    /// Last ROW/INT set command (power-on: 0xA0, ROW output).
    public private(set) var rowIntSet: UInt8 = 0xA0
    /// Command bytes outside the datasheet table.
    public private(set) var unknownCommands = 0
    /// Traffic counters.
    public private(set) var traffic = Traffic()
    /// Pending scripted failures, applied in order.
    public private(set) var faults: [Fault] = []
    /// False between `powerOff` and `powerOn`: every transfer fails with ENXIO (NACK).
    public private(set) var powered = true
    /// Whether the bus adapter can read (SMBus read byte data); if not, reads throw
    /// EOPNOTSUPP before anything goes on the wire, as i2c-dev does.
    public let supportsReads: Bool

    /// A chip just powered up: RAM holds `garbage`, settings are power-on defaults.
    public init(name: String = "emulated", address: UInt8 = 0x70, garbage: RAMGarbage = .random(seed: 0x16_33),
                supportsReads: Bool = true) {
        self.name = name
        self.address = address
        self.supportsReads = supportsReads
        ram = garbage.bytes()
    }

    /// Whether LEDs can light: oscillator running and display on.
    public var isLit: Bool { oscillatorOn && displayOn }

    /// Zeroes the traffic counters.
    public func resetTraffic() {
        traffic = Traffic()
    }

    /// Makes the next `count` transfers matching `match` fail with `errno`.
    public func failNext(_ count: Int = 1, errno: Int32 = Errno.EIO, matching match: Fault.Match = .any) {
        inject(Fault(match: match, errno: errno, count: count))
    }

    /// Queues a fault.
    public func inject(_ fault: Fault) {
        if fault.count > 0 { faults.append(fault) }
    }

    /// Power loss and return between two transfers: no transfer fails, but RAM becomes
    /// `garbage` and every setting returns to its power-on default (oscillator off,
    /// display off, blink off, brightness 15, address pointer 0).
    public func powerLoss(garbage: RAMGarbage = .random(seed: 0xDEAD)) {
        powerOff()
        powerOn(garbage: garbage)
    }

    /// The supply drops: from now on every transfer is NACKed (ENXIO) until `powerOn`.
    public func powerOff() {
        powered = false
    }

    /// The supply returns: power-on reset with RAM holding `garbage`.
    public func powerOn(garbage: RAMGarbage = .random(seed: 0xDEAD)) {
        powered = true
        ram = garbage.bytes()
        resetSettings()
    }

    /// A dip that resets the chip (settings at power-on defaults, display dark) while
    /// display RAM keeps its content: the case a RAM read-back cannot see.
    public func brownOut() {
        resetSettings()
    }

    private func resetSettings() {
        oscillatorOn = false
        displayOn = false
        blink = .off
        brightness = HT16K33Command.maxBrightness
        addressPointer = 0
        keyAddressCommand = nil
        rowIntSet = 0xA0
    }

    public func sendByte(_ byte: UInt8) throws(I2CError) {
        try checkFault(.sendByte(byte), data: [])
        traffic.transactions += 1
        traffic.bytes += 1
        execute(byte)
    }

    public func writeBlock(register: UInt8, _ bytes: [UInt8]) throws(I2CError) {
        try checkFault(.writeBlock(register: register, bytes: bytes), data: bytes)
        traffic.transactions += 1
        traffic.bytes += 1 + bytes.count
        execute(register)
        if register <= 0x0F { store(bytes) }
    }

    /// SMBus read byte data: 2 bytes on the wire (register byte, data byte).
    public func readByte(register: UInt8) throws(I2CError) -> UInt8 {
        guard supportsReads else { throw I2CError(self, .readByte(register: register), errno: Errno.EOPNOTSUPP) }
        try checkFault(.readByte(register: register), data: [])
        traffic.transactions += 1
        traffic.bytes += 2
        traffic.readBytes += 1
        execute(register)
        guard register <= 0x0F else { return 0 }
        let value = ram[Int(addressPointer)]
        addressPointer = (addressPointer + 1) & 0x0F
        return value
    }

    /// Panel text decoded from RAM, e.g. `" 2:58"`.
    public func text(kind: LayoutKind) throws(SegmentDisplayError) -> String {
        try Frame(ram: ram, kind: kind).text
    }

    private func checkFault(_ operation: I2COperation, data: [UInt8]) throws(I2CError) {
        guard powered else {
            traffic.failedTransactions += 1
            throw I2CError(self, operation, errno: Errno.ENXIO)
        }
        guard let index = faults.firstIndex(where: { $0.matches(operation) }) else { return }
        let fault = faults[index]
        faults[index].count -= 1
        if faults[index].count <= 0 { faults.remove(at: index) }
        traffic.failedTransactions += 1
        if case let .writeBlock(register, _) = operation, fault.partialBytes > 0 {
            execute(register)
            if register <= 0x0F { store(Array(data.prefix(fault.partialBytes))) }
        }
        throw I2CError(self, operation, errno: fault.errno)
    }

    private func store(_ bytes: [UInt8]) {
        for byte in bytes {
            ram[Int(addressPointer)] = byte
            addressPointer = (addressPointer + 1) & 0x0F
        }
        traffic.ramBytes += bytes.count
    }

    private func execute(_ command: UInt8) {
        switch command >> 4 {
        case 0x0: addressPointer = command & 0x0F
        case 0x2: oscillatorOn = command & 0x01 != 0
        case 0x4, 0x6: keyAddressCommand = command
        case 0x8:
            displayOn = command & HT16K33Command.displayOnBit != 0
            blink = BlinkRate(bits: command >> 1)
        case 0xA: rowIntSet = command
        case 0xE: brightness = command & 0x0F
        default: unknownCommands += 1
        }
    }
}

extension EmulatedHT16K33: DisplayReadback {
    public func readDisplayState() throws(I2CError) -> HT16K33State {
        HT16K33State(ram: ram, brightness: brightness, blink: blink, displayOn: isLit)
    }
}
