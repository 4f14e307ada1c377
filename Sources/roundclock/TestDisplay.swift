import ArgumentParser
import BoardSpec
import CommandLineSupport
import HT16K33
import I2C
import LinuxHardware
import Panels
import RoundClockConfig
import RoundClockCore
import RoundClockService
import SegmentDisplay
import Simulation

/// `roundclock test-display`: lamp test of a board's panels.
struct TestDisplay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test-display",
        abstract: "Lamp test: all segments, each digit, each brightness level, then blank.")

    @Option(help: "Board file. Required unless --simulate.")
    var board: String?

    @Option(help: "Seconds each step stays on, 0 to 60.")
    var step: Double = 0.5

    func validate() throws { try checkRange(step, "--step", 0...60, unit: " s") }

    @Flag(help: "Emulated chips: print each step's RAM instead of lighting real panels.")
    var simulate = false

    /// The steps: name, RAM per panel kind, brightness.
    static func steps(for kind: LayoutKind) -> [(name: String, ram: [UInt8], brightness: UInt8)] {
        let all = [UInt8](repeating: 0xFF, count: 16)
        var steps: [(String, [UInt8], UInt8)] = [("all segments", all, 15)]
        for position in 0..<kind.positions {
            steps.append(("digit \(position + 1)", digitRAM(kind, position), 15))
        }
        for level in UInt8(0)...15 { steps.append(("brightness \(level)", all, level)) }
        steps.append(("blank", [UInt8](repeating: 0, count: 16), 15))
        return steps
    }

    /// RAM that lights digit `position`: whole bytes on the Adafruit backpacks (their
    /// wiring), only the digit's wired segments and point on a custom layout (digits there
    /// may share a RAM byte).
    static func digitRAM(_ kind: LayoutKind, _ position: Int) -> [UInt8] {
        var ram = [UInt8](repeating: 0, count: 16)
        if kind == .seg7x4 || kind == .bigseg7x4 {
            ram[[0, 2, 6, 8][position]] = 0xFF
        } else if kind == .seg14x4 {
            ram[2 * position] = 0xFF
            ram[2 * position + 1] = 0xFF
        } else if kind.isMatrix {
            // Column band of the digit: every row byte of that half (matrix) or all for 8x8.
            for byte in 0..<16 where kind == .matrix8x8 ? byte % 2 == 0 : byte % 2 == position / 2 { ram[byte] = 0xFF }
        } else {
            let wiring = kind.digits[position]
            for wire in wiring.segments + (wiring.point.map { [$0] } ?? []) { ram[wire.byte] |= wire.mask }
        }
        return ram
    }

    func run() async throws {
        let loaded: Board
        do {
            guard simulate || board != nil else { throw ValidationError("--board FILE is required (or --simulate)") }
            loaded = try BoardFile.load(board)
        } catch let error as ConfigError { throw ValidationError(error.description) }
        if simulate {
            let chips = loaded.panels.map { EmulatedHT16K33(address: $0.address) }
            try await lampTest(loaded, devices: chips) { panel, chip in
                print("\(panel.role.rawValue) \(ramHex(chip.ram)) brightness \(chip.brightness)")
            }
            return
        }
        let devices: [LinuxI2CDevice]
        do { devices = try loaded.panels.map { try LinuxI2CDevice(bus: loaded.i2cBus, address: $0.address) } } catch {
            printError("\(error)")
            throw ExitCode(ExitStatus.unavailable)
        }
        try await lampTest(loaded, devices: devices) { _, _ in }
    }

    private func lampTest<Device: I2CDevice>(_ board: Board, devices: [Device], after: (PanelSpec, Device) -> Void) async throws {
        var drivers = devices.map { HT16K33Driver(device: $0) }
        for i in drivers.indices { try drivers[i].start() }
        let count = board.panels.map { Self.steps(for: $0.kind).count }.max() ?? 0
        for index in 0..<count {
            var names: [String] = []
            for (i, panel) in board.panels.enumerated() {
                let steps = Self.steps(for: panel.kind)
                let step = steps[min(index, steps.count - 1)]
                names.append(step.name)
                try drivers[i].commit(ram: step.ram, brightness: step.brightness, blink: .off)
                after(panel, drivers[i].device)
            }
            print("step \(index + 1)/\(count): \(Set(names).sorted().joined(separator: ", "))")
            if step > 0 { try await Task.sleep(for: seconds(step)) }
        }
    }
}
