import HT16K33
import Panels
import RoundClockConfig
import RoundClockService
import Simulation

/// The simulator's board (the built-in boards/simulator.toml: time seg7x4 0x70, round
/// seg7x4 0x71, phase seg14x4 0x72): emulated HT16K33 chips behind the real driver and
/// `BoardDisplay`, as `simulate` assembles it. Each approach in a run gets its own board.
public enum BenchBoard {
    /// A started board (start-up sequence already written); `powerChecks` false: none
    /// (the loop then wakes only for display changes).
    public static func make(powerChecks: Bool = true) async throws -> BoardDisplay<EmulatedHT16K33> {
        let panels = try BoardFile.simulator().panels
        let display = BoardDisplay(specs: panels, devices: panels.map { EmulatedHT16K33(name: "bench", address: $0.address) },
                                   powerChecks: powerChecks ? .standard : nil)
        if let failure = await display.start().first { throw BenchBoardError(event: failure) }
        return display
    }

    /// Traffic of all chips of a board so far.
    public static func traffic(_ display: BoardDisplay<EmulatedHT16K33>) async -> Traffic {
        await display.inspect { chips in chips.reduce(Traffic()) { $0 + $1.traffic } }
    }
}

/// The bench's board as the render loop sees it: a `ConcreteBoard`, so its display calls
/// run code specialized for the emulated chip, as in `roundclock`.
public struct EmulatedBenchBoard: ConcreteBoard {
    public let board: BoardDisplay<EmulatedHT16K33>
    public init(board: BoardDisplay<EmulatedHT16K33>) { self.board = board }
}

/// An emulated chip refused the start-up sequence: a bug, reported rather than measured.
public struct BenchBoardError: Error, CustomStringConvertible {
    public let event: DisplayEvent
    public var description: String { "bench board failed to start: \(event)" }
}
