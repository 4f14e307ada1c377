import Platform
import Testing
@testable import LinuxHardware

@Suite struct DebounceTests {
    let ms: UInt64 = 1_000_000

    @Test func firstEdgeActsAtOnceAndChatterIsIgnored() {
        var d = EdgeDebouncer(pressed: false, lockoutNanoseconds: 30 * ms)
        do { let r = d.edge(pressed: true, at: 1000 * ms); #expect(r, "press delivered with no delay") }
        do { let r = d.edge(pressed: false, at: 1002 * ms); #expect(!r, "bounce inside 30 ms") }
        do { let r = d.edge(pressed: true, at: 1004 * ms); #expect(!r) }
        #expect(d.recheckAt == 1030 * ms)
        do { let r = d.settle(level: true, at: 1030 * ms); #expect(!r, "settled pressed: nothing new") }
        do { let r = d.edge(pressed: false, at: 1500 * ms); #expect(r, "release after the window") }
    }

    @Test func aTapShorterThanTheWindowIsStillReleased() {
        var d = EdgeDebouncer(pressed: false, lockoutNanoseconds: 30 * ms)
        do { let r = d.edge(pressed: true, at: 0); #expect(r) }
        do { let r = d.edge(pressed: false, at: 10 * ms); #expect(!r) }
        do { let r = d.settle(level: false, at: 30 * ms); #expect(r, "the release is delivered when the window closes") }
        #expect(!d.pressed)
    }

    @Test func repeatedLevelsAreNotEdges() {
        var d = EdgeDebouncer(pressed: true, lockoutNanoseconds: 30 * ms)
        do { let r = d.edge(pressed: true, at: 100 * ms); #expect(!r) }
        do { let r = d.edge(pressed: false, at: 200 * ms); #expect(r) }
    }

    @Test func heldForAnHourIsOnePress() {
        var d = EdgeDebouncer(pressed: false, lockoutNanoseconds: 30 * ms)
        do { let r = d.edge(pressed: true, at: 0); #expect(r) }
        do { let r = d.edge(pressed: true, at: 3_600_000 * ms); #expect(!r) }
        do { let r = d.edge(pressed: false, at: 3_600_001 * ms); #expect(r) }
    }

    @Test func lineSpecsParse() throws {
        #expect(try GPIOLines.locate("gpiochip0:17") == GPIOLocation(chip: "/dev/gpiochip0", offset: 17))
        #expect(try GPIOLines.locate("/dev/gpiochip4:5") == GPIOLocation(chip: "/dev/gpiochip4", offset: 5))
        #expect(throws: SystemError.self) { try GPIOLines.locate("GPIO999-not-here") }
    }

    @Test func i2cErrorsNameBusAddressAndErrno() {
        #expect(throws: SystemError.self) { try LinuxI2CDevice(bus: 250, address: 0x70) }
        do { _ = try LinuxI2CDevice(bus: 250, address: 0x70) } catch {
            #expect(error.description == "/dev/i2c-250: open failed: No such file or directory (errno 2)")
        }
    }
}
