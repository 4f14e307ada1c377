import LinuxHardware
import Panels
import Simulation

/// The boards `run` and `simulate` drive, each a `ConcreteBoard` so the render loop's
/// display calls run code specialized for its device.
struct HardwareBoard: ConcreteBoard {
    let board: BoardDisplay<LinuxI2CDevice>
}

struct EmulatedBoard: ConcreteBoard {
    let board: BoardDisplay<EmulatedHT16K33>
}
