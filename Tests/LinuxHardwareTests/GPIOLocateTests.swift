import Platform
import Testing
@testable import LinuxHardware

/// Board files name a line `chip:offset` as a fallback; the offset is digits only
/// (`UInt32("+17")` would take the sign).
@Suite struct GPIOLocateTests {
    @Test func chipAndOffsetIsDigitsOnly() throws {
        #expect(try GPIOLines.locate("gpiochip0:17") == GPIOLocation(chip: "/dev/gpiochip0", offset: 17))
        #expect(try GPIOLines.locate("/dev/gpiochip4:4294967295").offset == .max)
        for spec in ["gpiochip0:+17", "gpiochip0:-1", "gpiochip0: 17", "gpiochip0:4294967296", "gpiochip0:99999999999999999999"] {
            #expect(throws: SystemError.self, "\(spec)") { try GPIOLines.locate(spec) }
        }
    }
}
