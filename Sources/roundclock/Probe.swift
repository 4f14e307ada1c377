import ArgumentParser
import Hex
import LinuxHardware
import RoundClockConfig
import RoundClockCore

/// `roundclock probe`: what hardware is there.
struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List I2C buses, HT16K33 chips answering at 0x70-0x77, GPIO chips, and a board's lines.")

    @Option(help: "Probe only /dev/i2c-N.")
    var bus: Int?

    @Option(help: "Board file whose panels and lines to check.")
    var board: String?

    func run() throws {
        let loaded: Board?
        do { loaded = try board.map { try BoardFile.load($0) } } catch { throw ValidationError("\(error)") }
        let buses = bus.map { [$0] } ?? I2CProbe.buses()
        print("I2C buses: \(buses.isEmpty ? "none (is I2C enabled? raspi-config nonint do_i2c 0)" : buses.map { "/dev/i2c-\($0)" }.joined(separator: " "))")
        for n in buses {
            do {
                let found = try I2CProbe.answering(bus: n)
                let list = found.map { "0x" + hex($0) }.joined(separator: " ")
                print("  i2c-\(n): HT16K33 range 0x70-0x77: \(found.isEmpty ? "nothing answers" : "answering at \(list)")")
            } catch {
                print("  i2c-\(n): \(error)")
            }
        }
        let chips = GPIOLines.chips()
        print("GPIO chips (libgpiod API v\(GPIOLines.apiVersion)): \(chips.isEmpty ? "none" : "")")
        for path in chips {
            do {
                let chip = try GPIOInfo.chip(path)
                print("  \(path) [\(chip.label)] \(chip.lines) lines")
            } catch {
                print("  \(path): \(error)")
            }
        }
        guard let loaded else { return }
        print("Board \"\(loaded.name)\":")
        for panel in loaded.panels {
            print("  \(panel.role.rawValue) panel: \(panel.kind.rawValue) at i2c-\(loaded.i2cBus) 0x\(hex(panel.address))")
        }
        var lines = Button.allCases.compactMap { b in loaded.buttons[b].map { (b.rawValue, $0) } }
        if let buzzer = loaded.buzzer { lines.append(("buzzer", buzzer)) }
        lines += Lamp.allCases.compactMap { lamp in loaded.lights[lamp].map { ("light-\(lamp.rawValue)", $0) } }
        if let horn = loaded.horn { lines.append(("horn", horn)) }
        for (role, spec) in lines {
            do {
                let location = try GPIOLines.locate(spec)
                let info = try GPIOInfo.line(location)
                let use = info.used ? "in use by \(info.consumer.isEmpty ? "?" : info.consumer)" : "free"
                print("  \(role): \(spec) -> \(location), \(info.output ? "output" : "input"), \(use)")
            } catch {
                print("  \(role): \(spec): \(error)")
            }
        }
    }
}
